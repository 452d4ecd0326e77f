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
