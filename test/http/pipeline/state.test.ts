/** The request state and the stage runner (src/http/pipeline/state.ts). */
import { describe, expect, it } from "vitest";
import { runStages, type Stage } from "../../../src/http/pipeline/state.js";
import { stateOf } from "../../helpers/pipeline.js";

describe("openRequest", () => {
  it("reads the URL with its unreserved escapes decoded", () => {
    expect(stateOf("GET", "/api/v1/workspaces/ws%5Fabc").url.pathname).toBe("/api/v1/workspaces/ws_abc");
  });

  it("marks every method but GET and HEAD a write", () => {
    expect(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"].map((m) => stateOf(m, "/").writes)).toEqual([
      false,
      false,
      true,
      true,
      true,
      true,
    ]);
  });

  it("covers only the first request made inside an enclosing one", () => {
    const enclosing = { covered: false };
    const first = stateOf("GET", "/", { env: { enclosing } });
    const second = stateOf("GET", "/", { env: { enclosing } });
    expect([first.covered, second.covered]).toEqual([true, false]);
  });
});

describe("runStages", () => {
  it("runs stages in order, synchronously while they are", () => {
    const order: string[] = [];
    const stages: Stage[] = [() => void order.push("a"), () => void order.push("b")];
    expect(runStages(stages, stateOf("GET", "/"))).toBeUndefined();
    expect(order).toEqual(["a", "b"]);
  });

  it("runs the stages after an asynchronous one once it settles, and stops at a refusal", async () => {
    const order: string[] = [];
    const stages: Stage[] = [
      async () => void order.push("a"),
      () => {
        order.push("b");
        throw new Error("refused");
      },
      () => void order.push("c"),
    ];
    const pending = runStages(stages, stateOf("GET", "/"));
    expect(order).toEqual(["a"]);
    await expect(pending).rejects.toThrow("refused");
    expect(order).toEqual(["a", "b"]);
  });
});
