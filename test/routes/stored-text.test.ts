/** A write's answer shows its text as stored: a lone surrogate is stored, and answered, as U+FFFD. */
import { expect, it } from "vitest";
import { makeHarness } from "../helpers/harness.js";

it("answers generations and reference materials with the text a GET then reads", async () => {
  const h = makeHarness();
  const key = h.key({ workspaceId: h.a.ws1 });
  const gen = await h.send("POST", "/api/v1/generate", {
    auth: key,
    body: { template_id: 1, user_direction: "Quarterly reviews \ud800 for remote teams" },
  });
  expect(gen.status).toBe(201);
  const got = await h.send("GET", `/api/v1/contents/${gen.body.content_id}`, { auth: key });
  expect(gen.body.content).toBe(got.body.content);
  expect(gen.body.title).toBe(got.body.title);
  expect(gen.body.content.isWellFormed()).toBe(true);

  const ref = await h.send("POST", "/api/v1/reference-materials", {
    auth: key,
    body: { title: "Notes \udc00", format: "text", content: "Remote teams \ud800 plan in writing every week." },
  });
  expect(ref.status).toBe(201);
  const read = await h.send("GET", `/api/v1/reference-materials/${ref.body.id}`, { auth: key });
  expect(ref.body).toEqual(read.body);
  expect(ref.body.content).toContain("\ufffd");
});

it("takes every string of a JSON body as it will be stored: a memory's, nested values and keys", async () => {
  const h = makeHarness();
  const key = h.key({ workspaceId: h.a.ws1 });
  const memory = await h.send("POST", "/api/v1/memories", {
    auth: key,
    body: { kind: "context", title: "Audience \ud800", content: "Finance \udc00 teams." },
  });
  expect(memory.status).toBe(201);
  expect(memory.body).toMatchObject({ title: "Audience \ufffd", content: "Finance \ufffd teams." });
  const read = await h.send("GET", `/api/v1/memories/${memory.body.id}`, { auth: key });
  expect(read.body).toEqual(memory.body);
  // Nested, in arrays and in keys: the body the route sees is well-formed throughout.
  const raw = '{"kind":"voice","title":"t","content":"a\\ud83d b","x":{"\\udfff":["\\ud800"]}}';
  const nested = await h.send("POST", "/api/v1/memories", {
    auth: key,
    raw,
    headers: { "content-type": "application/json" },
  });
  expect(nested.status, JSON.stringify(nested.body)).toBe(201);
  expect(nested.body.content).toBe("a\ufffd b");
  // A well-formed pair written as escapes is left alone.
  const pair = await h.send("POST", "/api/v1/memories", {
    auth: key,
    raw: '{"kind":"voice","title":"t","content":"\\ud83d\\ude00"}',
    headers: { "content-type": "application/json" },
  });
  expect(pair.body.content).toBe("😀");
});
