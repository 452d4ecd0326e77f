/**
 * The short maintenance lock of a reset or a restore (states.ts): while it is closed, requests to the API wait at the
 * door and are answered once it opens; it closes only once every request under way has finished (a streamed answer
 * counts until its last byte), so that no request sees half of one state and half of another, and none writes into
 * the state restored what it read from the one before. The sandbox's own operations pass (they are what closes it).
 * Held by test/sandbox/reset.test.ts ("waits").
 */
import type { App } from "../http/app.js";
import { type Incoming, incomingOf, isStreamBody, type Outgoing, responseOf } from "../http/exchange.js";

/** Counts the requests under way and holds new ones while a change of the whole state runs. */
export class RequestGate {
  private running = 0;
  private closed: Promise<void> | undefined;
  private drained: (() => void) | undefined;
  private turn: Promise<unknown> = Promise.resolve();

  /** `app` behind the gate. */
  wrap(app: App): App {
    const serve = async (request: Incoming, env?: Parameters<App["serve"]>[1]): Promise<Outgoing> => {
      if (new URL(request.url).pathname.startsWith("/_sandbox/")) return app.serve(request, env);
      while (this.closed) await this.closed;
      this.running++;
      let out: Outgoing;
      try {
        out = await app.serve(request, env);
      } catch (e) {
        this.done();
        throw e;
      }
      if (isStreamBody(out.body)) out.body = this.countedStream(out.body);
      else this.done();
      return out;
    };
    return {
      ...app,
      serve,
      handle: async (request, env) => responseOf(await serve(incomingOf(request), env), request.method),
    };
  }

  /**
   * Runs `change` with the gate closed, once the requests under way have finished; changes run one at a time, in the
   * order asked.
   */
  whileClosed<T>(change: () => Promise<T>): Promise<T> {
    const run = this.turn.then(async () => {
      let open!: () => void;
      this.closed = new Promise<void>((resolve) => {
        open = resolve;
      });
      try {
        if (this.running > 0) await new Promise<void>((resolve) => (this.drained = resolve));
        return await change();
      } finally {
        this.closed = undefined;
        open();
      }
    });
    this.turn = run.catch(() => {});
    return run;
  }

  /** Requests under way now. */
  get underWay(): number {
    return this.running;
  }

  private done(): void {
    this.running--;
    if (this.running === 0) {
      this.drained?.();
      this.drained = undefined;
    }
  }

  /** The stream, passed on, counted as under way until it ends, fails or is cancelled. */
  private countedStream(body: ReadableStream<Uint8Array>): ReadableStream<Uint8Array> {
    const reader = body.getReader();
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.done();
    };
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            end();
            controller.close();
          } else controller.enqueue(value);
        } catch (e) {
          end();
          controller.error(e);
        }
      },
      async cancel(reason) {
        end();
        await reader.cancel(reason);
      },
    });
  }
}
