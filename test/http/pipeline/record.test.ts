/** The record of an answer (src/http/pipeline/record.ts): the usage count and the request log line. */
import { describe, expect, it } from "vitest";
import { jsonOutgoing } from "../../../src/http/exchange.js";
import { authenticateCaller } from "../../../src/http/pipeline/authenticate.js";
import { recordAnswer } from "../../../src/http/pipeline/record.js";
import { makeHarness } from "../../helpers/harness.js";
import { keyRow } from "../../helpers/http.js";
import { routedOf, stateOf, testRoute } from "../../helpers/pipeline.js";

describe("recordAnswer", () => {
  it("logs the method, the redacted path, the status, the caller and the error code", async () => {
    const h = makeHarness();
    const key = h.key();
    const state = routedOf(testRoute(), `/api/v1/things/${key}`, { auth: key });
    await authenticateCaller(h.services)(state);
    state.errorCode = "route_not_found";
    recordAnswer(h.services, state, jsonOutgoing(404, {}));
    expect(h.logger.lines.at(-1)).toMatchObject({
      level: "info",
      method: "GET",
      path: "/api/v1/things/[redacted]",
      status: 404,
      key_id: keyRow(h, key).id,
      user_id: null,
      trace_id: state.traceId,
      error_code: "route_not_found",
    });
  });

  it("logs a 5xx at level error", () => {
    const h = makeHarness();
    recordAnswer(h.services, stateOf("GET", "/x"), jsonOutgoing(500, {}));
    expect(h.logger.lines.at(-1)).toMatchObject({ level: "error", status: 500 });
  });

  it("counts usage for an authenticated request, not for one its enclosing request covers", async () => {
    const h = makeHarness();
    const counted: unknown[] = [];
    h.services.usage.countFor = (principal) => void counted.push(principal);
    const key = h.key();
    const plain = routedOf(testRoute(), "/x", { auth: key });
    await authenticateCaller(h.services)(plain);
    recordAnswer(h.services, plain, jsonOutgoing(200, {}));
    const covered = routedOf(testRoute(), "/x", { auth: key, env: { enclosing: { covered: false } } });
    await authenticateCaller(h.services)(covered);
    recordAnswer(h.services, covered, jsonOutgoing(200, {}));
    expect(counted).toEqual([plain.principal]);
  });
});
