/**
 * Property-based fuzzing of every operation in the OpenAPI document (DESIGN §3: no input, however malformed, gets
 * a 5xx; every error has the coded body). For each operation fast-check sends hostile requests (see requests.ts)
 * through the in-process app, with a read+write key and sometimes none, a read key, a bound key or a bogus
 * credential, and checks: status < 500, the DESIGN §3 error body for every status ≥ 400, no echo of the caller's
 * secret, and GET /healthz still 200 afterwards.
 *
 * FUZZ_RUNS sets the runs per operation (CI: 12; `npm run fuzz:long`: 1,000). A failure prints the operation, the
 * seed and the path; replay one with FUZZ_OP=<operationId> FUZZ_SEED=<seed> FUZZ_PATH=<path> npx vitest run test/fuzz.
 * FUZZ_STATS=1 prints the statuses seen per operation; FUZZ_CONTRACT=1 also holds every answer to the description
 * (the shared contract check of test/helpers).
 */
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { buildOpenApi } from "../../src/http/openapi.js";
import { ROUTES } from "../../src/routes/index.js";
import { type Answer, answerOf, type Harness, makeHarness } from "../helpers/harness.js";
import { expectErrorBodyOf, freshAddress, sendTo, sessionOf } from "../helpers/http.js";
import { inlined } from "../helpers/openapi-doc.js";
import { type FuzzRequest, type Known, type Operation, requestsFor, type Schema } from "./requests.js";
import { watchdog } from "./watchdog.js";

const RUNS = Number(process.env.FUZZ_RUNS ?? 12);
const ONLY = process.env.FUZZ_OP;
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const PATH = process.env.FUZZ_PATH;
/** How long one operation's runs and shrinking may take in all before fast-check stops (a long run: no limit). */
const SHRINK_LIMIT_MS = RUNS > 100 ? undefined : 45_000;

interface DocOperation {
  operationId: string;
  parameters?: Operation["params"];
  requestBody?: { content: Record<string, { schema?: Schema }> };
}
const doc = buildOpenApi(ROUTES, { publicUrl: "http://127.0.0.1:8080", stagingUrl: "http://127.0.0.1:8081" }) as {
  paths: Record<string, Record<string, DocOperation>>;
  components: { schemas: Record<string, Schema> };
};

const operations: Operation[] = [];
for (const [path, methods] of Object.entries(doc.paths))
  for (const [method, op] of Object.entries(methods)) {
    const content = op.requestBody?.content ?? {};
    operations.push({
      id: op.operationId,
      method: method.toUpperCase(),
      path,
      params: op.parameters ?? [],
      // The generators read a schema's own properties: the named components it refers to are inlined.
      json: inlined(doc, content["application/json"]?.schema),
      multipart: inlined(doc, content["multipart/form-data"]?.schema),
    });
  }
const selected = operations.filter((op) => !ONLY || op.id === ONLY);

/** A harness with raised limits and a few records (a reference, a generated content, a memory) to reach. */
async function prepared(): Promise<{ h: Harness; known: Known }> {
  const h = makeHarness();
  for (const id of [h.a.id, h.b.id]) h.services.store.accounts.setLimits(id, 1_000_000_000, 1_000_000_000);
  const key = h.key();
  const ref = await h.send("POST", "/api/v1/reference-materials", {
    auth: key,
    body: {
      title: "Quarter planning",
      content: "The team plans the quarter. Budget and roadmap matter.",
      format: "text",
    },
  });
  const gen = await h.send("POST", "/api/v1/generate", {
    auth: key,
    body: {
      template_id: 1,
      user_direction: "How the team plans the quarter",
      reference_material_ids: [ref.body?.id ?? 1],
    },
  });
  await h.send("POST", "/api/v1/memories", {
    auth: key,
    body: { kind: "voice", title: "Plain words", content: "Short sentences, no jargon." },
  });
  const keyId = h.services.store.apiKeys.list(h.a.id)[0]?.id ?? "key_missing";
  return {
    h,
    known: {
      ids: ["1", "2", "3", String(gen.body?.content_id ?? 1), keyId, String(h.a.id)],
      workspaces: [h.a.ws1, h.a.ws2, h.b.ws],
    },
  };
}

async function credentialFor(h: Harness, op: Operation, kind: FuzzRequest["credential"]): Promise<string | undefined> {
  const route = ROUTES.find((r) => r.operationId === op.id);
  switch (kind) {
    case "none":
      return undefined;
    case "read":
      return h.key({ scopes: ["read"] });
    case "bound": {
      // Bound to a workspace of account A that still exists (a fuzzed DELETE may have removed some).
      const ws = h.services.store.workspaces.listByAccount(h.a.id)[0];
      return ws ? h.key({ workspaceId: ws.id }) : h.key();
    }
    case "bogus-key":
      return "svc_live_0123456789abcdefghijABCDEFGHIJ01";
    case "bogus-token":
      return "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl";
    default:
      // The credential that reaches the operation: a key for `any`, an admin session for session-only operations.
      if (route?.access === "session" || route?.access === "admin") return sessionOf(h, "admin@a.test");
      return route?.access === "public" ? undefined : h.key();
  }
}

/**
 * Sends through the app as is. FUZZ_CONTRACT=1 sends through the shared helper instead, which also holds every
 * answer to the description's documented statuses and schemas.
 */
async function send(h: Harness, req: FuzzRequest, auth: string | undefined): Promise<Answer> {
  const opts = { auth, bytes: req.body, headers: req.headers, remoteAddress: freshAddress() };
  if (process.env.FUZZ_CONTRACT === "1") return sendTo(h.app, req.method, req.url, opts);
  const headers = new Headers(req.headers);
  if (auth !== undefined) headers.set("authorization", `Bearer ${auth}`);
  const response = await h.app.handle(
    new Request(`http://test.local${req.url}`, { method: req.method, headers, body: req.body as BodyInit | undefined }),
    { remoteAddress: opts.remoteAddress },
  );
  return answerOf(response);
}

describe("fuzzing every OpenAPI operation", () => {
  // A request that blocks the event loop stops every timeout here: the watchdog's thread reports it with its seed.
  const dog = watchdog();
  afterAll(() => dog.stop());

  it("covers the whole document", () => {
    expect(operations.length).toBeGreaterThan(50);
    expect(new Set(operations.map((o) => o.id)).size).toBe(operations.length);
  });

  it.each(selected.map((op) => ({ name: `${op.method} ${op.path} (${op.id})`, op })))(
    "$name: never a 5xx, always the coded error body, and the server stays up",
    async ({ op }) => {
      const { h, known } = await prepared();
      const seed = SEED ?? Math.floor(Math.random() * 2 ** 31);
      const statuses = new Map<number, number>();
      let reported = false;
      const property = fc.asyncProperty(requestsFor(op, known), async (req) => {
        let context = `${req.method} ${req.url.slice(0, 200)}`;
        dog.begin(`${op.id} (seed ${seed}): ${fc.stringify(req)}`);
        try {
          const auth = await credentialFor(h, op, req.credential);
          const res = await send(h, req, auth);
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          context += ` → ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`;
          expect(res.status, context).toBeLessThan(500);
          if (res.status >= 400 && req.method !== "HEAD") {
            // A replayed error (Idempotency-Key) carries the replay's trace id too, so the body matches the header.
            expectErrorBodyOf(op, res, res.status);
          }
          if (auth?.startsWith("svc_live_")) expect(JSON.stringify(res.body) ?? "", context).not.toContain(auth);
          const health = await h.send("GET", "/healthz");
          expect(health.status, "GET /healthz after the request").toBe(200);
        } catch (e) {
          // The seed at once, before shrinking: should the shrinking itself crash the run, the seed is still known.
          if (!reported) {
            reported = true;
            process.stderr.write(`fuzz: ${op.id} failed (seed ${seed}, shrinking): ${context}\n`);
          }
          throw e;
        } finally {
          dog.end();
        }
      });
      const out = await fc.check(property, {
        numRuns: RUNS,
        seed,
        ...(PATH ? { path: PATH } : {}),
        endOnFailure: false,
        // Shrinking stops after this long (the failure and its seed stand); a replay with the seed shrinks at leisure.
        interruptAfterTimeLimit: SHRINK_LIMIT_MS,
        markInterruptAsFailure: false,
      });
      if (process.env.FUZZ_STATS === "1")
        process.stdout.write(
          `${op.id}: ${[...statuses]
            .sort((a, b) => a[0] - b[0])
            .map(([k, n]) => `${k}×${n}`)
            .join(" ")}\n`,
        );
      if (out.failed) {
        const error = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
        throw new Error(
          `${op.method} ${op.path} failed after ${out.numRuns} runs (shrunk ${out.numShrinks} times)\n` +
            `replay: FUZZ_OP=${op.id} FUZZ_SEED=${out.seed} FUZZ_PATH=${out.counterexamplePath} npx vitest run test/fuzz\n` +
            `counterexample: ${out.counterexample ? fc.stringify(out.counterexample[0]) : "none"}\n${error}`,
        );
      }
    },
  );
});
