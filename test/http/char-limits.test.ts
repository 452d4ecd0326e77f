/**
 * Length limits count characters (Unicode code points), as the description's `maxLength` does for a client's
 * validator: a title of 300 emoji is 300 characters, not the 600 UTF-16 units valibot's maxLength counted.
 */
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { buildOpenApi } from "../../src/http/openapi.js";
import { maxChars, minChars } from "../../src/http/schemas.js";
import { parseInput } from "../../src/http/validate.js";
import { ROUTES } from "../../src/routes/index.js";
import { charLength } from "../../src/runtime/chars.js";
import { DEFAULT_CONFIG } from "../../src/server/services.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, sessionOf } from "../helpers/http.js";
import { requestSchemaOf } from "../helpers/openapi-doc.js";

const EMOJI = "😀"; // one character, two UTF-16 units
const ASTRAL = "𝄞"; // U+1D11E, one character outside the emoji ranges, two UTF-16 units
type Schema = { properties: Record<string, { maxLength?: number; minLength?: number }> };

describe("charLength and maxChars", () => {
  it("counts a surrogate pair as one character and a lone surrogate as one", () => {
    expect(charLength("")).toBe(0);
    expect(charLength("abc")).toBe(3);
    expect(charLength(EMOJI.repeat(3))).toBe(3);
    expect(charLength(`a${EMOJI}b`)).toBe(3);
    expect(charLength("\uD83D")).toBe(1);
    expect(charLength("\uDE00\uD83D")).toBe(2);
    expect(charLength(`\uD83D${EMOJI}`)).toBe(2);
  });

  it("accepts up to the limit in characters and names the count in characters when refusing", () => {
    const schema = v.pipe(v.string(), maxChars(3));
    expect(v.safeParse(schema, EMOJI.repeat(3)).success).toBe(true);
    expect(v.safeParse(schema, "abc").success).toBe(true);
    const refused = v.safeParse(schema, EMOJI.repeat(4));
    expect(refused.success).toBe(false);
    expect(refused.issues?.[0].received).toBe("4");
    expect(() => parseInput(schema, EMOJI.repeat(4), "body")).toThrow("body must be at most 3 characters (got 4)");
  });
});

describe("minChars", () => {
  it("counts characters as maxChars does: one astral character is short of 2, two are enough", () => {
    const schema = v.pipe(v.string(), minChars(2), maxChars(3));
    const refused = v.safeParse(schema, ASTRAL);
    expect(refused.success).toBe(false);
    expect(refused.issues?.[0].received).toBe("1");
    expect(() => parseInput(schema, ASTRAL, "body")).toThrow("body must be at least 2 characters (got 1)");
    expect(v.safeParse(schema, ASTRAL.repeat(2)).success).toBe(true);
    expect(v.safeParse(schema, EMOJI).success).toBe(false);
    expect(v.safeParse(schema, "ab").success).toBe(true);
    expect(v.safeParse(schema, "a").success).toBe(false);
    // A lone surrogate is a character of its own, as charLength and JSON Schema count it.
    expect(v.safeParse(schema, "\uD83Da").success).toBe(true);
    expect(v.safeParse(v.pipe(v.string(), minChars(1, "must hold a value")), "").issues?.[0].message).toBe(
      "must hold a value",
    );
  });
});

describe("limits over HTTP", () => {
  it("refuses a password of 4 emoji (8 UTF-16 units) against the minimum of 8, as the description's minLength says", async () => {
    const h = makeHarness();
    const admin = await sessionOf(h, "admin@a.test");
    const short = await h.send("POST", "/api/v1/admin/users", {
      auth: admin,
      body: { account_id: h.a.id, email: "emoji@a.test", password: EMOJI.repeat(4) },
    });
    expect(expectErrorBody(short, 400, "validation_failed").issues).toEqual([
      { path: "body.password", message: "password must be at least 8 characters (got 4)" },
    ]);
    const enough = await h.send("POST", "/api/v1/admin/users", {
      auth: admin,
      body: { account_id: h.a.id, email: "emoji@a.test", password: EMOJI.repeat(8) },
    });
    expect(enough.status, JSON.stringify(enough.body)).toBe(201);
    // /admin/* is internal (spec §9.3): described in the internal description only.
    const doc = buildOpenApi(ROUTES, DEFAULT_CONFIG, { internal: true });
    const schema: Schema = requestSchemaOf(doc, "/api/v1/admin/users", "post");
    expect(schema.properties.password).toMatchObject({ minLength: 8, maxLength: 1024 });
    const memory: Schema = requestSchemaOf(doc, "/api/v1/memories", "post");
    expect(memory.properties.title).toMatchObject({ minLength: 1 });
  });

  it("takes a title of 300 emoji and refuses 301, as the description's maxLength says", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    const ok = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: EMOJI.repeat(300) } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.title).toBe(EMOJI.repeat(300));
    const over = await h.send("POST", "/api/v1/contents", { auth: key, body: { title: EMOJI.repeat(301) } });
    const details = expectErrorBody(over, 400, "validation_failed");
    expect(details.issues).toEqual([{ path: "body.title", message: "title must be at most 300 characters (got 301)" }]);
    const schema: Schema = requestSchemaOf(buildOpenApi(ROUTES, DEFAULT_CONFIG), "/api/v1/contents", "post");
    expect(schema.properties.title.maxLength).toBe(300);
  });

  it("counts a reference material's text in characters too", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    // 250,000 emoji: 500,000 UTF-16 units + 2 over the limit in units, within it in characters.
    const content = `${EMOJI.repeat(250_001)}`;
    const res = await h.send("POST", "/api/v1/reference-materials", {
      auth: key,
      body: { content, format: "text", title: "emoji" },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
    const over = await h.send("POST", "/api/v1/reference-materials", {
      auth: key,
      body: { content: `${"a".repeat(500_000)}${EMOJI}`, format: "text", title: "over" },
    });
    expect(expectErrorBody(over, 400, "validation_failed").issues).toEqual([
      {
        path: "body.content",
        message: expect.stringContaining("at most 500000 characters as plain text (got 500001)"),
      },
    ]);
  });

  it("does not cut a title taken from the first line through an emoji", async () => {
    const h = makeHarness();
    const key = h.key({ workspaceId: h.a.ws1 });
    const res = await h.send("POST", "/api/v1/reference-materials", {
      auth: key,
      body: { content: `${"a".repeat(79)}${EMOJI.repeat(100)}\n\nbody`, format: "text" },
    });
    expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(201);
    expect(res.body.title).not.toContain("\uFFFD");
  });
});
