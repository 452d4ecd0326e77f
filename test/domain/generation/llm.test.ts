import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finishAnswer } from "../../../src/domain/generation/prompt.js";
import { type FakeLlm, startFakeLlm } from "../../helpers/fake-llm.js";
import { makeHarness } from "../../helpers/harness.js";
import { hookedPool } from "../../helpers/pools.js";

let fake: FakeLlm;
beforeAll(async () => {
  fake = await startFakeLlm();
});
afterAll(() => fake.close());

function setup(model: string, timeoutMs = 1_000) {
  const h = makeHarness({ config: { llm: { baseUrl: fake.url, model, apiKey: "sk-local-test", timeoutMs } } });
  const key = h.key({ workspaceId: h.a.ws1 });
  return { h, key };
}

/** A streamed generation sent straight to the app, with a signal for the client's leaving; the raw response. */
function streamedGeneration(h: ReturnType<typeof makeHarness>, key: string, model: string, signal: AbortSignal) {
  return h.app.handle(
    new Request("http://test.local/api/v1/generate", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ template_id: 1, user_direction: "x", model, stream: true }),
      signal,
    }),
    { remoteAddress: "127.0.0.1" },
  );
}

/** Parses a text/event-stream body into its events. */
function events(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split("\n\n")
    .filter((b) => b.trim())
    .map((block) => {
      const event = /^event: (.+)$/m.exec(block)?.[1] ?? "message";
      const data = JSON.parse(/^data: (.+)$/m.exec(block)?.[1] ?? "null");
      return { event, data };
    });
}

const countContents = (h: ReturnType<typeof makeHarness>) =>
  (h.db.prepare("SELECT count(*) AS n FROM contents").get() as { n: number }).n;

describe("the on-prem model engine", () => {
  it("keeps the base URL's query a query (Azure OpenAI's api-version)", async () => {
    const h = makeHarness({
      config: { llm: { baseUrl: `${fake.url}/v1/?api-version=2024-10-21#x`, model: "plain", timeoutMs: 1_000 } },
    });
    const key = h.key({ workspaceId: h.a.ws1 });
    const before = fake.requests.length;
    const res = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "Planning reviews", model: "plain" },
    });
    expect(res.status).toBe(201);
    expect(fake.requests[before].url).toBe("/v1/chat/completions?api-version=2024-10-21");
  });

  it("is listed by GET /models with the builtin engine", async () => {
    const { h, key } = setup("plain");
    const res = await h.send("GET", "/api/v1/models", { auth: key });
    expect(res.body.data.map((m: { id: string; kind: string }) => [m.id, m.kind])).toEqual([
      ["builtin", "builtin"],
      ["plain", "openai-compatible"],
    ]);
    const builtinOnly = makeHarness();
    const only = await builtinOnly.send("GET", "/api/v1/models", { auth: builtinOnly.key() });
    expect(only.body.data).toHaveLength(1);
  });

  it("generates with a prompt built from the template, direction, memories, voice and passages", async () => {
    const { h, key } = setup("plain");
    const ref = await h.send("POST", "/api/v1/reference-materials", {
      auth: key,
      body: {
        title: "Survey",
        content: "Remote teams that hold a weekly written planning review ship 23% more features.",
        format: "text",
      },
    });
    const mem = await h.send("POST", "/api/v1/memories", {
      auth: key,
      body: { kind: "context", title: "Company", content: "Acme builds planning software." },
    });
    h.services.store.learning.saveProfile({
      id: "vp_test",
      accountId: h.a.id,
      workspaceId: h.a.ws1,
      traits: {
        substitutions: [{ from: "utilize", to: "use", count: 2 }],
        avoided_phrases: [{ phrase: "In today's fast-paced world", count: 1 }],
        preferred_phrases: [],
        target_sentence_words: 12,
        readability_target: null,
        average_edit_seconds: null,
      },
      sampleCount: 1,
      now: new Date().toISOString(),
    });
    const before = fake.requests.length;
    const res = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: {
        template_id: 1,
        user_direction: "Write about written planning reviews",
        model: "plain",
        memory_ids: [mem.body.id],
        reference_material_ids: [ref.body.id],
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ model: "plain", status: "generated", title: "Written Planning Reviews" });
    // The voice profile's substitution is applied to the model's answer.
    expect(res.body.content).toContain("Teams can use the review");
    expect(res.body.sources[0].reference_material_id).toBe(ref.body.id);
    const sent = fake.requests[before];
    expect(sent.authorization).toBe("Bearer sk-local-test");
    expect(sent.stream).toBe(false);
    const prompt = sent.messages.map((m) => m.content).join("\n");
    expect(prompt).toContain("Blog post");
    expect(prompt).toContain("Write about written planning reviews");
    expect(prompt).toContain("Acme builds planning software.");
    expect(prompt).toContain("23% more features");
    expect(prompt).toContain('never "utilize"');
    expect(prompt).toContain("In today's fast-paced world");
    // Context memories are background facts, not copy.
    expect(prompt).toContain("Use these facts; do not copy their sentences.");
  });

  it("states the voice memories' rules in the prompt and follows them in the model's answer", async () => {
    const { h, key } = setup("plain");
    const mem = await h.send("POST", "/api/v1/memories", {
      auth: key,
      body: {
        kind: "voice",
        title: "House style",
        content: "Keep sentences under 12 words. Never use exclamation marks. Prefer 'groups' to 'teams'.",
      },
    });
    const before = fake.requests.length;
    const res = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "Planning reviews", model: "plain", memory_ids: [mem.body.id] },
    });
    expect(res.status).toBe(201);
    const system = fake.requests[before].messages[0].content;
    expect(system).toContain("Keep every sentence under 12 words.");
    expect(system).toContain("Never use exclamation marks.");
    expect(system).toContain('Write "groups", never "teams".');
    expect(system).toContain('Voice note "House style": Keep sentences under 12 words.');
    // The answer's heading is kept; its prose follows the preferred word, inflection and case kept.
    expect(res.body.content).toMatch(/^# Written Planning Reviews\n\nRemote groups that hold a weekly written/);
    expect(res.body.content).toContain("Groups can utilize the review to plan.");
  });

  it("streams the text as it arrives and stores the content once complete", async () => {
    const { h, key } = setup("stream");
    const res = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "Planning reviews", model: "stream", stream: true },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const evs = events(res.body);
    const deltas = evs.filter((e) => e.event === "delta");
    expect(deltas.length).toBeGreaterThan(5);
    const done = evs.at(-1)!;
    expect(done.event).toBe("done");
    expect(deltas.map((d) => d.data.text).join("")).toContain(
      "Remote teams that hold a weekly written planning review",
    );
    expect(done.data).toMatchObject({ status: "generated", model: "stream" });
    const stored = await h.send("GET", `/api/v1/contents/${done.data.content_id}`, { auth: key });
    expect(stored.body.content).toBe(done.data.content);
  });

  it("streams the builtin engine too, ending with the stored record", async () => {
    const h = makeHarness();
    const key = h.key();
    const res = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 2, user_direction: "A LinkedIn post about hiring", stream: true },
    });
    const evs = events(res.body);
    const done = evs.at(-1)!;
    expect(done.event).toBe("done");
    expect(
      evs
        .filter((e) => e.event === "delta")
        .map((e) => e.data.text)
        .join(""),
    ).toBe(done.data.content);
    expect(typeof done.data.content_id).toBe("number");
  });

  it.each([
    ["error-object", 502, "upstream_error", /model overloaded/],
    ["http-500", 502, "upstream_error", /CUDA out of memory/],
    ["not-json", 502, "upstream_invalid_response", /not JSON/],
    ["empty", 502, "upstream_invalid_response", /content/],
    ["slow", 504, "upstream_timeout", /did not answer/],
  ])("answers %s with a coded %i and stores nothing", async (model, status, code, message) => {
    const { h, key } = setup(model);
    const res = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "x", model },
    });
    expect(res.status).toBe(status);
    expect(res.body.details.error_code).toBe(code);
    expect(res.body.message).toMatch(message);
    expect(countContents(h)).toBe(0);
  });

  it("answers 502 upstream_unavailable when the model server is down", async () => {
    const h = makeHarness({ config: { llm: { baseUrl: "http://127.0.0.1:9", model: "down", timeoutMs: 1_000 } } });
    const res = await h.send("POST", "/api/v1/generate", {
      auth: h.key(),
      body: { template_id: 1, user_direction: "x", model: "down" },
    });
    expect(res.status).toBe(502);
    expect(res.body.details.error_code).toBe("upstream_unavailable");
    const streamed = await h.send("POST", "/api/v1/generate", {
      auth: h.key(),
      body: { template_id: 1, user_direction: "x", model: "down", stream: true },
    });
    expect(streamed.status).toBe(502);
    expect(countContents(h)).toBe(0);
  });

  it.each([
    ["stream-error", "upstream_error"],
    ["cut", "upstream_invalid_response"],
    ["slow-stream", "upstream_timeout"],
  ])("ends a stream of %s with an error event and stores nothing", async (model, code) => {
    const { h, key } = setup(model);
    const res = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "x", model, stream: true },
    });
    expect(res.status).toBe(200);
    const last = events(res.body).at(-1)!;
    expect(last.event).toBe("error");
    expect((last.data.details as { error_code: string }).error_code).toBe(code);
    expect(countContents(h)).toBe(0);
  });

  it("refuses an unknown model with 400 naming the ones there are", async () => {
    const { h, key } = setup("plain");
    const res = await h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "x", model: "gpt-9" },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("builtin, plain");
  });
});

describe("the on-prem model engine's own work", () => {
  it("follows the voice memories' word rules on every line of an answer, and splits only prose lines", () => {
    const memories = [
      { kind: "voice" as const, content: "Sentences of at most 8 words. No exclamation marks. Never say 'synergy'." },
    ];
    const text =
      "# Synergy matters!\n\n- Teams that write decisions down ship sooner, and they meet less!\n\n" +
      "Teams that write decisions down ship sooner, and they meet less!";
    const out = finishAnswer({ text, voice: null, sources: [], memories });
    expect(out.text).toBe(
      "# Cooperation matters.\n\n- Teams that write decisions down ship sooner, and they meet less.\n\n" +
        "Teams that write decisions down ship sooner. They meet less.",
    );
  });

  it("ranks passages, builds prompts and applies the voice on the worker pool, not the HTTP thread", async () => {
    const tasks: string[] = [];
    const pool = hookedPool((name) => {
      tasks.push(name);
    });
    for (const [model, stream] of [
      ["plain", false],
      ["stream", true],
    ] as const) {
      const h = makeHarness({ config: { llm: { baseUrl: fake.url, model, timeoutMs: 1_000 } }, pool });
      const key = h.key({ workspaceId: h.a.ws1 });
      const res = await h.send("POST", "/api/v1/generate", {
        auth: key,
        body: { template_id: 1, user_direction: "Planning reviews", model, stream },
      });
      expect(res.status, JSON.stringify(res.body).slice(0, 200)).toBeLessThan(300);
      if (!stream) {
        // The answer is not a thesis (a 502), but the prompt was built first.
        const thesis = await h.send("POST", "/api/v1/thesis", {
          auth: key,
          body: { user_direction: "Planning reviews", model },
        });
        expect(thesis.status).toBe(502);
      }
    }
    expect(tasks).toEqual(["llmPrompt", "llmFinish", "thesisPrompt", "llmPrompt", "llmFinish"]);
  });
});

describe("a misbehaving model server", () => {
  const generate = (h: ReturnType<typeof makeHarness>, key: string, model: string, stream: boolean) =>
    h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "x", model, stream },
    });

  it("ends a stream whose line never ends with upstream_invalid_response, and stops reading it", async () => {
    // 4 MiB with no line feed, then a stall: past the 1 MiB line limit long before the stall's timeout.
    const { h, key } = setup("no-newline");
    const res = await generate(h, key, "no-newline", true);
    const last = events(res.body).at(-1)!;
    expect(last.event).toBe("error");
    expect(last.data).toMatchObject({ status: 502, details: { error_code: "upstream_invalid_response" } });
    expect(last.data.message).toMatch(/line longer than 1 MiB/);
    await fake.dropped("no-newline");
    expect(countContents(h)).toBe(0);
  });

  it("stops a model that writes on and on at the content limit, with an error event and not a 500", async () => {
    const { h, key } = setup("endless-events");
    const res = await generate(h, key, "endless-events", true);
    expect(res.status).toBe(200);
    const evs = events(res.body);
    const last = evs.at(-1)!;
    expect(last.event).toBe("error");
    expect(last.data).toMatchObject({ status: 502, details: { error_code: "upstream_invalid_response" } });
    expect(last.data.message).toMatch(/longer than 500000 characters/);
    const sent = evs.filter((e) => e.event === "delta").reduce((n, e) => n + String(e.data.text).length, 0);
    expect(sent).toBeLessThanOrEqual(500_000);
    await fake.dropped("endless-events");
    expect(countContents(h)).toBe(0);
  });

  it("keeps no Idempotency-Key answer for a stream ending in an error event: a retry under the key runs", async () => {
    const { h, key } = setup("stream-error");
    const asked = () => fake.requests.filter((r) => r.model === "stream-error").length;
    const before = asked();
    for (let i = 0; i < 2; i++) {
      const res = await h.send("POST", "/api/v1/generate", {
        auth: key,
        body: { template_id: 1, user_direction: "x", model: "stream-error", stream: true },
        headers: { "idempotency-key": "st-err" },
      });
      expect(res.headers.get("idempotent-replayed")).toBeNull();
      expect(events(res.body).at(-1)).toMatchObject({ event: "error", data: { status: 502 } });
    }
    expect(asked()).toBe(before + 2);
    expect(countContents(h)).toBe(0);
  });

  it("cancels the model server's answer when the client leaves while the stream waits on it", async () => {
    // A timeout far beyond the test's own: only the client's leaving can close the upstream connection.
    const { h, key } = setup("stall-stream", 600_000);
    const client = new AbortController();
    const res = await streamedGeneration(h, key, "stall-stream", client.signal);
    const reader = res.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first).toContain("event: delta");
    client.abort();
    await reader.cancel();
    await fake.dropped("stall-stream");
    expect(countContents(h)).toBe(0);
  });

  it("stores nothing for a client that leaves while the answer's finish waits on the pool", async () => {
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let finishing: Promise<void> | undefined;
    const pool = hookedPool((name) => {
      if (name !== "llmFinish") return;
      finishing = held;
      return held;
    });
    const h = makeHarness({ config: { llm: { baseUrl: fake.url, model: "stream", timeoutMs: 1_000 } }, pool });
    const key = h.key({ workspaceId: h.a.ws1 });
    const client = new AbortController();
    const res = await streamedGeneration(h, key, "stream", client.signal);
    const reader = res.body!.getReader();
    // Every delta, up to the finish the pool holds (the read waiting then gets no answer).
    let pending = reader.read();
    while (finishing === undefined) {
      const next = await Promise.race([pending, new Promise<null>((r) => setImmediate(() => r(null)))]);
      if (next !== null) pending = reader.read();
    }
    client.abort();
    await reader.cancel();
    release();
    await finishing;
    await new Promise((r) => setImmediate(r));
    expect(countContents(h)).toBe(0);
  });

  it("answers JSON null, whole or as a stream event, with a coded 502, not a 500", async () => {
    for (const [model, stream] of [
      ["null", false],
      ["null-stream", true],
    ] as const) {
      const { h, key } = setup(model);
      const res = await generate(h, key, model, stream);
      if (stream) {
        expect(res.status).toBe(200);
        const last = events(res.body as string).at(-1)!;
        expect(last.event).toBe("error");
        expect((last.data.details as { error_code: string }).error_code).toBe("upstream_invalid_response");
      } else {
        expect(res.status).toBe(502);
        expect(res.body.details.error_code).toBe("upstream_invalid_response");
      }
      expect(countContents(h)).toBe(0);
    }
  });

  it("answers a non-streamed body cut off midway with a coded 502, not a 500", async () => {
    const { h, key } = setup("cut-body");
    const res = await generate(h, key, "cut-body", false);
    expect(res.status).toBe(502);
    expect(res.body.details.error_code).toBe("upstream_invalid_response");
    expect(res.body.message).toMatch(/broke off/);
  });

  it("refuses a non-streamed answer over 8 MiB with a coded 502 and closes its connection", async () => {
    const { h, key } = setup("huge-body");
    const res = await generate(h, key, "huge-body", false);
    expect(res.status).toBe(502);
    expect(res.body.details.error_code).toBe("upstream_invalid_response");
    expect(res.body.message).toMatch(/larger than 8 MiB/);
    await fake.dropped("huge-body");
    expect(countContents(h)).toBe(0);
  });

  it("never shows the credentials of a base URL (user:password@, a token in its query) in GET /models or in an error", async () => {
    for (const baseUrl of ["http://ops:hunter2@127.0.0.1:9", "http://127.0.0.1:9/v1?key=hunter2&ops=1#hunter2"]) {
      const h = makeHarness({ config: { llm: { baseUrl, model: "down", timeoutMs: 1_000 } } });
      const key = h.key();
      const models = await h.send("GET", "/api/v1/models", { auth: key });
      expect(models.body.data[1].description).toContain("http://127.0.0.1:9");
      const res = await generate(h, key, "down", false);
      expect(res.status).toBe(502);
      expect(res.body.details.error_code).toBe("upstream_unavailable");
      for (const answer of [models, res]) {
        expect(JSON.stringify(answer.body)).not.toContain("hunter2");
        expect(JSON.stringify(answer.body)).not.toContain("ops:");
        expect(JSON.stringify(answer.body)).not.toContain("key=");
      }
    }
  });
});

describe("thesis", () => {
  it("builds a thesis with points tied to passages and counterpoints (builtin)", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    const ref = await h.send("POST", "/api/v1/reference-materials", {
      auth: key,
      body: {
        title: "Survey",
        format: "text",
        content:
          "Remote teams that hold a weekly written planning review ship 23% more features per quarter.\n\nThe review takes under an hour when the agenda is shared in advance.\n\nHowever, reviews that nobody reads fail to change anything.",
      },
    });
    const res = await h.send("POST", "/api/v1/thesis", {
      auth: key,
      body: {
        user_direction: "weekly written planning reviews for remote teams",
        reference_material_ids: [ref.body.id],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.model).toBe("builtin");
    expect(res.body.thesis).toMatch(/planning review/i);
    expect(res.body.supporting_points.length).toBeGreaterThan(0);
    for (const p of res.body.supporting_points) {
      expect(p.reference_material_id).toBe(ref.body.id);
      expect(p.passage).toContain(p.text.replace(/\.$/, ""));
    }
    expect(res.body.counterpoints.join(" ")).toMatch(/nobody reads/);
  });

  it("asks the on-prem model for JSON and ties its points to the numbered sources", async () => {
    const { h, key } = setup("thesis");
    const ref = await h.send("POST", "/api/v1/reference-materials", {
      auth: key,
      body: { title: "S", format: "text", content: "Teams that hold weekly written reviews ship more features." },
    });
    const res = await h.send("POST", "/api/v1/thesis", {
      auth: key,
      body: { user_direction: "written reviews", reference_material_ids: [ref.body.id], model: "thesis" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      thesis: "Written reviews work.",
      counterpoints: ["Reviews nobody reads fail."],
      model: "thesis",
    });
    expect(res.body.supporting_points[0]).toMatchObject({
      text: "Teams ship more.",
      reference_material_id: ref.body.id,
    });
    const bad = setup("plain");
    const malformed = await bad.h.send("POST", "/api/v1/thesis", {
      auth: bad.key,
      body: { user_direction: "x", model: "plain" },
    });
    expect(malformed.status).toBe(502);
    expect(malformed.body.details.error_code).toBe("upstream_invalid_response");
  });
});

describe("images from an OpenAI-compatible endpoint", () => {
  const setupImages = (model: string) => {
    const h = makeHarness({ config: { imageModel: { baseUrl: fake.url, model, timeoutMs: 1_000 } } });
    return { h, key: h.key() };
  };

  it("stores the endpoint's image with the type and size read from its bytes", async () => {
    const { h, key } = setupImages("image-ok");
    const res = await h.send("POST", "/api/v1/images/generate", {
      auth: key,
      body: { prompt: "a red square", width: 256, height: 256, model: "image-ok" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      mime_type: "image/png",
      width: 1,
      height: 1,
      source: "generated",
      prompt: "a red square",
    });
    const builtin = await h.send("POST", "/api/v1/images/generate", {
      auth: key,
      body: { prompt: "a red square", width: 64, height: 64 },
    });
    expect(builtin.body).toMatchObject({ width: 64, height: 64 });
    const unknown = await h.send("POST", "/api/v1/images/generate", {
      auth: key,
      body: { prompt: "x", model: "dall-e-9" },
    });
    expect(unknown.status).toBe(400);
  });

  it("refuses an image over 10 MiB from the endpoint with a coded 502, reading no further", async () => {
    const { h, key } = setupImages("image-huge");
    const res = await h.send("POST", "/api/v1/images/generate", {
      auth: key,
      body: { prompt: "x", model: "image-huge" },
    });
    expect(res.status).toBe(502);
    expect(res.body.details.error_code).toBe("upstream_invalid_response");
    expect(res.body.message).toMatch(/larger than 10 MiB/);
    await fake.dropped("image-huge");
    expect((await h.send("GET", "/api/v1/images", { auth: key })).body.data).toEqual([]);
  });

  it.each([
    ["image-text", "upstream_invalid_response"],
    ["image-error", "upstream_error"],
    ["image-null", "upstream_invalid_response"],
  ])("answers %s with a coded 502 and stores nothing", async (model, code) => {
    const { h, key } = setupImages(model);
    const res = await h.send("POST", "/api/v1/images/generate", { auth: key, body: { prompt: "x", model } });
    expect(res.status).toBe(502);
    expect(res.body.details.error_code).toBe(code);
    expect((await h.send("GET", "/api/v1/images", { auth: key })).body.data).toEqual([]);
  });
});
