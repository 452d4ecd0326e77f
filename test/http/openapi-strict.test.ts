/**
 * What the served description says of the rules that depend on the server's configuration or on the media type:
 * the `model` enums list the engines this server offers, and an upload's JSON and multipart forms each require the
 * field that form carries. (test/fuzz/valid-requests.test.ts holds the whole description to the server.)
 */
import { describe, expect, it } from "vitest";
import { makeHarness } from "../helpers/harness.js";
import { inlined } from "../helpers/openapi-doc.js";

// biome-ignore lint/suspicious/noExplicitAny: the description is read as plain JSON.
type Doc = any;

async function served(config?: Parameters<typeof makeHarness>[0]): Promise<Doc> {
  const h = makeHarness(config);
  const res = await h.send("GET", "/api/v1/openapi.json");
  expect(res.status).toBe(200);
  return res.body;
}

const bodyOf = (doc: Doc, path: string, type = "application/json") =>
  inlined(doc, doc.paths[path].post.requestBody.content[type].schema);

describe("the description of a server's configuration", () => {
  it("lists builtin as the only model of a server without a model server", async () => {
    const doc = await served();
    expect(bodyOf(doc, "/api/v1/generate").properties.model.enum).toEqual(["builtin"]);
    expect(bodyOf(doc, "/api/v1/thesis").properties.model.enum).toEqual(["builtin"]);
    expect(bodyOf(doc, "/api/v1/images/generate").properties.model.enum).toEqual(["builtin"]);
  });

  it("lists the configured model server's model (by id and by kind) and the image model", async () => {
    const llm = { baseUrl: "http://127.0.0.1:9", model: "local-7b", timeoutMs: 1_000 };
    const imageModel = { baseUrl: "http://127.0.0.1:9", model: "draw-1", timeoutMs: 1_000 };
    const h = makeHarness({ config: { llm, imageModel } });
    const doc = (await h.send("GET", "/api/v1/openapi.json")).body;
    const key = h.key();
    const offered = bodyOf(doc, "/api/v1/generate").properties.model.enum;
    expect(offered).toEqual(["builtin", "local-7b", "openai-compatible"]);
    expect(bodyOf(doc, "/api/v1/images/generate").properties.model.enum).toEqual(["builtin", "draw-1"]);
    // Each one listed is taken (the engine is down: the answer is an upstream error, not validation_failed).
    for (const model of offered) {
      const res = await h.send("POST", "/api/v1/thesis", { auth: key, body: { user_direction: "Plans", model } });
      expect(res.body?.details?.error_code, `${model}: ${JSON.stringify(res.body)}`).not.toBe("validation_failed");
    }
  });
});

describe("the one-of bodies", () => {
  it("require exactly one of their alternatives", async () => {
    const doc = await served();
    expect(bodyOf(doc, "/api/v1/scoring").oneOf).toEqual([{ required: ["text"] }, { required: ["content_id"] }]);
  });

  it("give an upload's JSON form its own field and its multipart form the file", async () => {
    const doc = await served();
    const json = bodyOf(doc, "/api/v1/images");
    expect(json.required).toEqual(["data_base64"]);
    expect(json.properties.file).toBeUndefined();
    const form = bodyOf(doc, "/api/v1/images", "multipart/form-data");
    expect(form.required).toEqual(["file"]);
    expect(form.properties.data_base64).toBeUndefined();
    const refJson = bodyOf(doc, "/api/v1/reference-materials");
    expect(refJson.required).toEqual(["content"]);
    const refForm = bodyOf(doc, "/api/v1/reference-materials", "multipart/form-data");
    expect(refForm.required).toEqual(["file"]);
    expect(refForm.properties.content).toBeUndefined();
  });
});
