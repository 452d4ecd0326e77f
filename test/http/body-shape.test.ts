/**
 * Bodies whose parsing would hold the HTTP thread: JSON with more values and keys than any operation takes, and
 * multipart bodies of more parts than an upload has, are refused with 400 validation_failed before they are parsed.
 */
import { describe, expect, it } from "vitest";
import {
  jsonTokensExceed,
  MAX_JSON_TOKENS,
  MAX_MULTIPART_PARTS,
  multipartPartsExceed,
} from "../../src/http/body-shape.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";
import { png } from "../helpers/images.js";

const manyKeys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(",")}}`;

/** A multipart body of text fields, as bytes. */
function multipart(parts: [string, string][], boundary = "cs-boundary") {
  const text = parts.map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  return {
    raw: Buffer.from(`${text.join("")}--${boundary}--\r\n`),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

describe("counting a JSON body's values and keys", () => {
  it("counts the structure outside strings only, escaped quotes included", () => {
    expect(jsonTokensExceed('{"a":[1,2,3]}', 5)).toBe(false);
    expect(jsonTokensExceed('{"a":[1,2,3],"b":1}', 5)).toBe(true);
    // Commas, colons and brackets inside strings are text.
    expect(jsonTokensExceed(`{"a":"${",:[{".repeat(10_000)}"}`, 5)).toBe(false);
    // An escaped quote does not end the string; an escaped backslash before a quote does.
    expect(jsonTokensExceed(`{"a":"\\",,,,,,,,"}`, 2)).toBe(false);
    expect(jsonTokensExceed(`{"a":"\\\\",${'"b":1,'.repeat(5)}"c":1}`, 5)).toBe(true);
    // An unterminated string is left for JSON.parse.
    expect(jsonTokensExceed('"a,b,c', 0)).toBe(false);
  });

  it("counts multipart parts by their delimiters, with a quoted boundary too", () => {
    const body = multipart(Array.from({ length: 5 }, (_, i) => [`f${i}`, "x"] as [string, string]));
    expect(multipartPartsExceed(body.raw, body.contentType, 5)).toBe(false);
    expect(multipartPartsExceed(body.raw, body.contentType, 4)).toBe(true);
    expect(multipartPartsExceed(body.raw, 'multipart/form-data; boundary="cs-boundary"', 4)).toBe(true);
  });
});

describe("a body past the counts", () => {
  it("answers 400 validation_failed at path body, for JSON on any route and on an upload route", async () => {
    const h = makeHarness();
    const key = h.key();
    for (const path of ["/api/v1/contents", "/api/v1/images"]) {
      const res = await h.send("POST", path, {
        auth: key,
        raw: manyKeys(MAX_JSON_TOKENS),
        headers: { "content-type": "application/json", "idempotency-key": `many-${path}` },
      });
      const details = expectErrorBody(res, 400, "validation_failed");
      expect(details.issues).toEqual([{ path: "body", message: expect.stringMatching(/At most 20000/) }]);
    }
    // Just under the count, the body is parsed and its unknown keys ignored.
    const ok = await h.send("POST", "/api/v1/contents", {
      auth: key,
      raw: `{"title":"T",${manyKeys(MAX_JSON_TOKENS / 2 - 10).slice(1)}`,
      headers: { "content-type": "application/json" },
    });
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(201);
  });

  it("answers 400 to a multipart upload of too many parts, and takes an ordinary upload", async () => {
    const h = makeHarness();
    const key = h.key();
    const upload = async (extraFields: number) => {
      const form = new FormData();
      form.append("file", new Blob([new Uint8Array(png(4, 4))], { type: "image/png" }), "a.png");
      for (let i = 0; i < extraFields; i++) form.append(`x${i}`, "");
      const res = await h.app.handle(
        new Request("http://test.local/api/v1/images", {
          method: "POST",
          headers: { authorization: `Bearer ${key}` },
          body: form,
        }),
        { remoteAddress: "127.0.0.1" },
      );
      return { status: res.status, headers: res.headers, body: await res.json() };
    };
    const details = expectErrorBody(await upload(MAX_MULTIPART_PARTS), 400, "validation_failed");
    expect(details.issues).toEqual([{ path: "body", message: `At most ${MAX_MULTIPART_PARTS} parts.` }]);
    const stored = await upload(0);
    expect(stored.status, JSON.stringify(stored.body)).toBe(201);
  });
});
