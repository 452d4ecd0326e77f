/** The URL a request names (src/http/pipeline/url.ts); decodeUnreserved's own cases are in test/http/paths.test.ts. */
import { describe, expect, it } from "vitest";
import { requestUrl } from "../../../src/http/pipeline/url.js";

describe("requestUrl", () => {
  it("decodes the path's unreserved escapes and keeps the others", () => {
    expect(requestUrl("http://h/api/v1/contents/%32/a%2Fb").pathname).toBe("/api/v1/contents/2/a%2Fb");
  });

  it("reads a URL that does not parse as a request for /", () => {
    expect(requestUrl("not a url").pathname).toBe("/");
  });
});
