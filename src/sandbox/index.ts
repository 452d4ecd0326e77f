/**
 * Sandbox mode (`serve --sandbox`, docs/sandbox.md): what it adds to a server, composed here and mounted by the server
 * only when asked for. Every answer carries `X-Sandbox: 1`; requests may ask for faults with `Prefer` (prefer.ts,
 * socket-faults.ts, stream-faults.ts), and rules answer them to the requests they match (rules.ts) or make the model
 * server fail (engine-faults.ts); the journal keeps the last requests (journal.ts); its operations live under
 * /_sandbox/ (routes.ts), described at /_sandbox/openapi.json (description.ts); the test clock is the services'
 * clock (clock.ts) and runs the periodic jobs it passes (clock-jobs.ts); resets and named snapshots return to known
 * states (states.ts), behind a gate that holds requests meanwhile (states-gate.ts). One module per job.
 */
import { iso } from "../domain/clock.js";
import type { App, AppExtension } from "../http/app.js";
import type { Services } from "../http/context.js";
import { isStreamBody, type Outgoing } from "../http/exchange.js";
import type { ListenerOptions } from "../http/node.js";
import type { RequestState } from "../http/pipeline/state.js";
import type { RouteDef } from "../http/route.js";
import { randomUnit } from "../runtime/random.js";
import type { SandboxClock } from "./clock.js";
import { ClockJobs } from "./clock-jobs.js";
import { descriptionRoute } from "./description.js";
import { faultTheModelServer } from "./engine-faults.js";
import { type LoadedFixture, loadFixtureOnce } from "./fixtures.js";
import type { Fixture } from "./fixtures-schema.js";
import { RequestJournal } from "./journal.js";
import { type Preferences, preferStage, type SocketFault } from "./prefer.js";
import { clockRoutes, faultRoutes, journalRoutes, stateRoutes } from "./routes.js";
import { FaultRules, rulesStage } from "./rules.js";
import { faultingWriter } from "./socket-faults.js";
import { KnownStates, type StatesPlace } from "./states.js";
import { RequestGate } from "./states-gate.js";
import { forgetMemory, holdWrites } from "./states-memory.js";
import { streamCutAfter } from "./stream-faults.js";

/** What `serve --sandbox` sets. */
export interface SandboxOptions {
  /** How many requests the journal keeps (`--sandbox-journal`). */
  journalSize: number;
  /** What `--fixtures` loads as the sandbox starts (fixtures.ts), before the state to reset to is taken. */
  fixtures?: Fixture;
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
  /** The test clock (the services' clock) and the periodic jobs its advances run, given by the server. */
  clock: SandboxClock;
  clockJobs: ClockJobs;
  /** The known states (resets, snapshots): only over a database file (`place`), undefined in memory. */
  states?: KnownStates;
  /** The app behind the gate that holds requests while a state is restored (states-gate.ts). */
  wrap(app: App): App;
  /**
   * Loads the fixtures through `app` (the one not behind the gate), then takes the state to reset to; what the
   * fixtures made, undefined without any (or when the data directory has this fixture's records already).
   */
  start(app: App): Promise<LoadedFixture | undefined>;
  /** What the fixtures made as the server started (for its banner). */
  loaded?: LoadedFixture;
}

/**
 * The sandbox of a server over `services`, whose clock is `clock` (createServices was given it); with `place` (the server's connection and `<data-dir>/sandbox`), its known
 * states, the start's taken now: after the fixtures, before the first request.
 */
export function createSandbox(
  options: SandboxOptions,
  services: Services,
  clock: SandboxClock,
  place?: StatesPlace,
): Sandbox {
  const journal = new RequestJournal(options.journalSize);
  const rules = new FaultRules(randomUnit);
  faultTheModelServer(services.config.llm, () => rules.engineAnswerFor(), randomUnit);
  const clockJobs = new ClockJobs();
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
  // Known states: a reset also empties the journal and the fault rules and puts the clock back (as at the start); a
  // restore keeps them.
  let startClock = clock.mark();
  const gate = new RequestGate();
  const states =
    place &&
    new KnownStates(
      place,
      gate,
      () => holdWrites(services),
      () => forgetMemory(services),
      () => iso(now()),
    );
  const reset =
    states &&
    (() =>
      states.reset(() => {
        journal.clear();
        rules.clear();
        clock.returnTo(startClock);
      }));
  const routes: RouteDef[] = [
    ...journalRoutes(journal),
    ...faultRoutes(rules),
    ...clockRoutes(clock, clockJobs),
    ...(states && reset ? stateRoutes(states, reset) : []),
  ];
  // The description lists every operation of the sandbox, itself too (description.ts).
  routes.push(descriptionRoute(() => routes));
  return {
    routes,
    extension,
    listener: { writer: faultingWriter(socketFaults) },
    journal,
    rules,
    clock,
    clockJobs,
    states,
    wrap: (app) => gate.wrap(app),
    async start(app) {
      const loaded = options.fixtures && (await loadFixtureOnce(app, services, options.fixtures));
      states?.takeStart();
      startClock = clock.mark();
      return loaded;
    },
  };
}
