/**
 * Sandbox mode (`serve --sandbox`, docs/sandbox.md): what it adds to a server, composed here and mounted by the server
 * only when asked for. Every answer carries `X-Sandbox: 1`; requests may ask for faults with `Prefer` (prefer.ts,
 * socket-faults.ts, stream-faults.ts), and rules answer them to the requests they match (rules.ts) or make the model server fail (engine-faults.ts); the journal keeps the last requests (journal.ts); its operations live under
 * /_sandbox/ (routes.ts). One module per job: the test clock, resets and fixtures join them here.
 */
import { iso } from "../domain/clock.js";
import type { AppExtension } from "../http/app.js";
import type { Services } from "../http/context.js";
import { isStreamBody, type Outgoing } from "../http/exchange.js";
import type { ListenerOptions } from "../http/node.js";
import type { RequestState } from "../http/pipeline/state.js";
import type { RouteDef } from "../http/route.js";
import { randomUnit } from "../runtime/random.js";
import { descriptionRoute } from "./description.js";
import { faultTheModelServer } from "./engine-faults.js";
import { RequestJournal } from "./journal.js";
import { type Preferences, preferStage, type SocketFault } from "./prefer.js";
import { faultRoutes, journalRoutes } from "./routes.js";
import { FaultRules, rulesStage } from "./rules.js";
import { faultingWriter } from "./socket-faults.js";
import { streamCutAfter } from "./stream-faults.js";

/** What `serve --sandbox` sets. */
export interface SandboxOptions {
  /** How many requests the journal keeps (`--sandbox-journal`). */
  journalSize: number;
  /** `--seed`: ids, secrets and trace ids drawn from this seed, the clock at a fixed start (seed.ts). */
  seed?: number;
}

/** The default of `--sandbox-journal`. */
export const JOURNAL_DEFAULT = 1000;
/** The most requests `--sandbox-journal` may keep: each entry holds up to 64 KiB of body (journal.ts). */
export const JOURNAL_MAX = 10_000;

/** A server's sandbox: its routes, what it adds to the pipeline and to the writing of answers, and its journal. */
export interface Sandbox {
  routes: RouteDef[];
  extension: AppExtension;
  listener: ListenerOptions;
  journal: RequestJournal;
  rules: FaultRules;
}

/** The sandbox of a server over `services`. */
export function createSandbox(options: SandboxOptions, services: Services): Sandbox {
  const journal = new RequestJournal(options.journalSize);
  const rules = new FaultRules(randomUnit);
  faultTheModelServer(services.config.llm, () => rules.engineAnswerFor(), randomUnit);
  const asked = new WeakMap<RequestState, Preferences>();
  const socketFaults = new WeakMap<Outgoing, SocketFault>();
  const now = () => services.clock.now();
  const extension: AppExtension = {
    afterRateLimit: [preferStage(asked, now, services.config.llm)],
    beforeOperation: [rulesStage(rules, asked, now, services.config.llm)],
    finish(response, state) {
      response.headers["x-sandbox"] = "1";
      if (!state) return;
      const prefs = asked.get(state);
      if (prefs?.streamErrorAfter !== undefined && isStreamBody(response.body))
        response.body = streamCutAfter(response.body, prefs.streamErrorAfter, state.traceId);
      if (prefs?.socket) socketFaults.set(response, prefs.socket);
      // The sandbox's own operations are not what a test's client sent to the API.
      if (!state.url.pathname.startsWith("/_sandbox/")) journal.record(state, response, iso(now()));
    },
  };
  const routes: RouteDef[] = [...journalRoutes(journal), ...faultRoutes(rules)];
  // The description lists every operation of the sandbox, itself too (description.ts).
  routes.push(descriptionRoute(() => routes));
  return {
    routes,
    extension,
    listener: { writer: faultingWriter(socketFaults) },
    journal,
    rules,
  };
}
