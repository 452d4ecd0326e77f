/**
 * The gate of a reset (src/sandbox/states-gate.ts): it closes only once the requests under way have finished, a
 * streamed answer counting until its stream ends; requests asked while it is closed wait, the sandbox's own pass.
 */
import { expect, it } from "vitest";
import type { App } from "../../src/http/app.js";
import { incomingOf, type Outgoing } from "../../src/http/exchange.js";
import { RequestGate } from "../../src/sandbox/states-gate.js";

/** An app whose answers are a stream the test ends, or a body at once for /_sandbox/. */
function streamingApp(): { app: App; end: () => void } {
  let end = () => {};
  const app = {
    serve: async (request) => {
      if (new URL(request.url).pathname.startsWith("/_sandbox/")) return { status: 200, headers: {}, body: "ok" };
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode("data: 1\n\n"));
          end = () => controller.close();
        },
      });
      return { status: 200, headers: {}, body } as Outgoing;
    },
  } as App;
  return { app, end: () => end() };
}

const get = (path: string) => incomingOf(new Request(`http://test.local${path}`));

it("waits for a streamed answer to end before it runs, and holds a request asked meanwhile", async () => {
  const { app, end } = streamingApp();
  const gate = new RequestGate();
  const gated = gate.wrap(app);
  const order: string[] = [];
  const streamed = await gated.serve(get("/api/v1/generate"));
  const reader = (streamed.body as ReadableStream<Uint8Array>).getReader();
  await reader.read();
  expect(gate.underWay).toBe(1);
  const change = gate.whileClosed(async () => {
    order.push("change");
  });
  await new Promise((resolve) => setTimeout(resolve, 20));
  const held = gated.serve(get("/api/v1/memories")).then(() => order.push("held"));
  const own = await gated.serve(get("/_sandbox/requests"));
  expect(own.status).toBe(200);
  expect(order).toEqual([]);
  end();
  expect((await reader.read()).done).toBe(true);
  await change;
  await held;
  expect(order).toEqual(["change", "held"]);
});
