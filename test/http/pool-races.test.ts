/**
 * Requests that race with others while they wait (on the worker pool, or for their body). A workspace deleted while a
 * request that writes into it waits: the request answers 404 workspace_not_found, not a 500 of a failed foreign key,
 * and leaves nothing behind. Two creations of one user: the second gets the coded 400 with its issue.
 */
import { describe, expect, it } from "vitest";
import { type Harness, makeHarness } from "../helpers/harness.js";
import { expectErrorBody, sessionOf } from "../helpers/http.js";
import { hookedPool } from "../helpers/pools.js";

/** The inline pool, whose tasks wait from `hold()` until `open()`; `held.waiting` counts the tasks held. */
function gatedPool() {
  let open = () => {};
  let gate: Promise<void> | undefined;
  const held = { waiting: 0 };
  const pool = hookedPool(async () => {
    if (gate) {
      held.waiting++;
      await gate;
    }
  });
  const hold = () => {
    gate = new Promise<void>((r) => {
      open = r;
    });
  };
  return { pool, held, hold, open: () => open() };
}

/** Waits until `n` tasks are held. */
async function heldTasks(gated: ReturnType<typeof gatedPool>, n: number): Promise<void> {
  while (gated.held.waiting < n) await new Promise((r) => setTimeout(r, 5));
}

describe("a workspace deleted while a write into it waits on the worker pool", () => {
  it("answers 404 workspace_not_found to a generation and a reference material, and stores neither", async () => {
    const gated = gatedPool();
    const h = makeHarness({ pool: gated.pool });
    const key = h.key();
    const token = await sessionOf(h, "admin@a.test");
    const ws = h.a.ws2;
    gated.hold();

    const generation = h.send("POST", "/api/v1/generate", {
      auth: key,
      body: { template_id: 1, user_direction: "How the team plans the quarter", workspace_id: ws },
    });
    const reference = h.send("POST", "/api/v1/reference-materials", {
      auth: key,
      body: { title: "Notes", content: "The team plans the quarter.", format: "text", workspace_id: ws },
    });
    await heldTasks(gated, 2);
    expect((await h.send("DELETE", `/api/v1/workspaces/${ws}`, { auth: token })).status).toBe(200);
    gated.open();

    for (const res of [await generation, await reference]) {
      const details = expectErrorBody(res, 404, "workspace_not_found");
      expect(details.workspace_id).toBe(ws);
    }
    const count = (table: string) =>
      (
        h.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE workspace_id = ?`).get(ws) as {
          n: number;
        }
      ).n;
    expect(count("contents")).toBe(0);
    expect(count("reference_materials")).toBe(0);
  });
});

const encoder = new TextEncoder();

/** A POST whose body's second half arrives when `finish()` is called. */
function slowPost(h: Harness, path: string, body: unknown, secret: string) {
  const text = JSON.stringify(body);
  let finish = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(text.slice(0, 5)));
      finish = () => {
        controller.enqueue(encoder.encode(text.slice(5)));
        controller.close();
      };
    },
  });
  const answer = h.app.handle(
    new Request(`http://test.local${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: stream,
      duplex: "half",
    } as RequestInit),
    { remoteAddress: "127.0.0.1" },
  );
  return { answer, finish: () => finish() };
}

describe("credentials revoked while a write's body arrives", () => {
  it("answers 401 and writes nothing: a key revoked, a session signed out", async () => {
    const h = makeHarness();
    const admin = await sessionOf(h, "admin@a.test");
    const created = await h.send("POST", "/api/v1/api-keys", { auth: admin, body: { name: "slow" } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const member = await sessionOf(h, "admin@a.test");
    const contents = () => (h.db.prepare("SELECT count(*) AS n FROM contents").get() as { n: number }).n;
    const before = contents();

    const byKey = slowPost(h, "/api/v1/contents", { title: "t", content: "Some text." }, created.body.key);
    const bySession = slowPost(h, "/api/v1/contents", { title: "t", content: "Some text." }, member);
    await new Promise((r) => setTimeout(r, 20));
    expect((await h.send("DELETE", `/api/v1/api-keys/${created.body.id}`, { auth: admin })).status).toBe(200);
    expect((await h.send("POST", "/api/v1/auth/logout", { auth: member })).status).toBe(200);
    byKey.finish();
    bySession.finish();
    const [keyAnswer, sessionAnswer] = [await byKey.answer, await bySession.answer];
    expect(keyAnswer.status).toBe(401);
    expect(JSON.parse(await keyAnswer.text()).message).toBe("This API key has been revoked.");
    expect(sessionAnswer.status).toBe(401);
    expect(contents()).toBe(before);
  });
});

describe("a workspace deleted while a write's body arrives", () => {
  it("answers 404 workspace_not_found to a memory and a draft named by ?workspace_id= or by a bound key", async () => {
    const h = makeHarness();
    const key = h.key();
    const token = await sessionOf(h, "admin@a.test");
    const ws = h.a.ws2;
    const bound = h.key({ workspaceId: ws });
    const slow = (path: string, body: unknown, secret = key, query = `?workspace_id=${ws}`) =>
      slowPost(h, `${path}${query}`, body, secret);
    const memory = slow("/api/v1/memories", { kind: "voice", title: "t", content: "c" });
    const draft = slow("/api/v1/contents", { title: "t", content: "Some text." });
    const boundMemory = slow("/api/v1/memories", { kind: "voice", title: "t", content: "c" }, bound, "");
    await new Promise((r) => setTimeout(r, 20));
    expect((await h.send("DELETE", `/api/v1/workspaces/${ws}`, { auth: token })).status).toBe(200);
    for (const r of [memory, draft, boundMemory]) r.finish();
    for (const res of [await memory.answer, await draft.answer, await boundMemory.answer]) {
      const text = await res.text();
      expect(res.status, text).toBe(404);
      expect(JSON.parse(text).details).toMatchObject({ error_code: "workspace_not_found", workspace_id: ws });
    }
  });
});

describe("two requests creating the same user at once", () => {
  it("creates one; the other is 400 validation_failed naming body.email", async () => {
    const gated = gatedPool();
    const h = makeHarness({ pool: gated.pool });
    const op = await sessionOf(h, "admin@a.test");
    gated.hold();
    // Both pass the route's check for the email, then wait while their passwords are hashed.
    const body = { account_id: h.b.id, email: "dup@b.test", password: "correct horse battery staple" };
    const both = [0, 1].map(() => h.send("POST", "/api/v1/admin/users", { auth: op, body }));
    await heldTasks(gated, 2);
    gated.open();
    const answers = await Promise.all(both);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400]);
    const details = expectErrorBody(answers.find((a) => a.status === 400)!, 400, "validation_failed");
    expect(details.issues).toEqual([{ path: "body.email", message: expect.stringContaining("dup@b.test") }]);
  });
});

describe("a source deleted while the generation that names it runs", () => {
  it("answers 404 with the deleted ids and stores no piece without them", async () => {
    for (const kind of ["reference", "memory"] as const) {
      const gated = gatedPool();
      const h = makeHarness({ pool: gated.pool });
      const key = h.key({ workspaceId: h.a.ws1 });
      const ref = await h.send("POST", "/api/v1/reference-materials", {
        auth: key,
        body: { title: "Notes", content: "The team plans the quarter in March.", format: "text" },
      });
      const memory = await h.send("POST", "/api/v1/memories", {
        auth: key,
        body: { kind: "context", title: "Team", content: "The team is small." },
      });
      expect([ref.status, memory.status]).toEqual([201, 201]);
      const before = h.db.prepare("SELECT count(*) AS n FROM contents").get() as { n: number };
      gated.hold();
      const generation = h.send("POST", "/api/v1/generate", {
        auth: key,
        body: {
          template_id: 1,
          user_direction: "How the team plans the quarter",
          reference_material_ids: [ref.body.id],
          memory_ids: [memory.body.id],
        },
      });
      await heldTasks(gated, 1);
      const gone =
        kind === "reference" ? `/api/v1/reference-materials/${ref.body.id}` : `/api/v1/memories/${memory.body.id}`;
      expect((await h.send("DELETE", gone, { auth: key })).status).toBe(200);
      gated.open();
      const res = await generation;
      const details = expectErrorBody(
        res,
        404,
        kind === "reference" ? "reference_material_not_found" : "memory_not_found",
      );
      expect(details.missing_ids).toEqual([kind === "reference" ? ref.body.id : memory.body.id]);
      const after = h.db.prepare("SELECT count(*) AS n FROM contents").get() as { n: number };
      expect(after.n, kind).toBe(before.n);
    }
  });
});
