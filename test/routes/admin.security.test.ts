import { describe, expect, it } from "vitest";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, sessionOf } from "../helpers/http.js";

describe("/admin/* across accounts", () => {
  it("lets the operator account's admins act on every account", async () => {
    const h = makeHarness();
    const op = await h.login("admin@a.test");
    expect((await h.send("GET", "/api/v1/admin/accounts", { auth: op })).body.data.length).toBeGreaterThanOrEqual(2);
    const plan = await h.send("PUT", `/api/v1/admin/accounts/${h.b.id}`, { auth: op, body: { plan: "business" } });
    expect(plan.status).toBe(200);
    const user = await h.send("POST", "/api/v1/admin/users", {
      auth: op,
      body: { account_id: h.b.id, email: "new@b.test" },
    });
    expect(user.status).toBe(201);
    expect((await h.send("GET", `/api/v1/admin/audit-log?account_id=${h.b.id}`, { auth: op })).status).toBe(200);
  });

  it("takes an account read and written back: its own id, name and created_at, with a new plan", async () => {
    const h = makeHarness();
    const op = await h.login("admin@a.test");
    const listed = await h.send("GET", "/api/v1/admin/accounts", { auth: op });
    const record = listed.body.data.find((a: { id: number }) => a.id === h.b.id);
    const plan = record.plan === "agency" ? "business" : "agency";
    const back = await h.send("PUT", `/api/v1/admin/accounts/${h.b.id}`, { auth: op, body: { ...record, plan } });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
    expect(back.body).toEqual({ ...record, plan });
    // A field other than the account's is refused, naming it, and nothing is applied.
    for (const [field, value] of [
      ["name", "Renamed"],
      ["id", h.a.id],
    ] as const) {
      const res = await h.send("PUT", `/api/v1/admin/accounts/${h.b.id}`, {
        auth: op,
        body: { ...record, [field]: value },
      });
      expect(res.status, field).toBe(400);
      expect(res.body.details.issues[0].path).toBe(`body.${field}`);
    }
    const after = await h.send("GET", "/api/v1/admin/accounts", { auth: op });
    expect(after.body.data.find((a: { id: number }) => a.id === h.b.id)).toEqual({ ...record, plan });
    const unknown = await h.send("PUT", `/api/v1/admin/accounts/${h.b.id}`, { auth: op, body: { plna: "pro" } });
    expect(unknown.body.details.issues[0].path).toBe("body.plna");
    // Written back unchanged, it changes nothing and the audit log gains nothing: only a change is set and logged.
    const audit = async () =>
      (await h.send("GET", `/api/v1/admin/audit-log?account_id=${h.b.id}&limit=100`, { auth: op })).body.data.length;
    const logged = await audit();
    const same = await h.send("PUT", `/api/v1/admin/accounts/${h.b.id}`, { auth: op, body: { ...record, plan } });
    expect(same.status).toBe(200);
    expect(await audit()).toBe(logged);
  });

  it("keeps another account's admin inside its own account", async () => {
    const h = makeHarness();
    const other = await h.login("admin@b.test");
    const accounts = await h.send("GET", "/api/v1/admin/accounts", { auth: other });
    expect(accounts.body.data.map((a: { id: number }) => a.id)).toEqual([h.b.id]);
    const users = await h.send("GET", "/api/v1/admin/users", { auth: other });
    expect(users.body.data.every((u: { account_id: number }) => u.account_id === h.b.id)).toBe(true);
    const intoA = await h.send("POST", "/api/v1/admin/users", {
      auth: other,
      body: { account_id: h.a.id, email: "spy@a.test", role: "admin" },
    });
    expect(intoA.status).toBe(404);
    expect((await h.send("GET", `/api/v1/admin/audit-log?account_id=${h.a.id}`, { auth: other })).status).toBe(404);
    expect(
      (await h.send("PUT", `/api/v1/admin/accounts/${h.a.id}`, { auth: other, body: { plan: "starter" } })).status,
    ).toBe(404);
    // Not even its own plan or limits: those are what the operator sells.
    const ownPlan = await h.send("PUT", `/api/v1/admin/accounts/${h.b.id}`, {
      auth: other,
      body: { rate_per_minute: 1e6 },
    });
    expect(ownPlan.status).toBe(403);
    expect(ownPlan.body.details.error_code).toBe("admin_required");
    expect((await h.send("POST", "/api/v1/admin/accounts", { auth: other, body: { name: "x" } })).status).toBe(403);
    const own = await h.send("POST", "/api/v1/admin/users", {
      auth: other,
      body: { account_id: h.b.id, email: "m2@b.test" },
    });
    expect(own.status).toBe(201);
  });
});

describe("a taken email (issue 31 L2)", () => {
  it("is answered alike whichever account holds it, and only the operator is told whose it is", async () => {
    const h = makeHarness();
    const other = await sessionOf(h, "admin@b.test");
    const taken = async (auth: string, email: string) => {
      const res = await h.send("POST", "/api/v1/admin/users", { auth, body: { account_id: h.b.id, email } });
      expectErrorBody(res, 400, "validation_failed");
      return JSON.stringify({ ...res.body, trace_id: null, detail: null }).replaceAll(email, "EMAIL");
    };
    const inAnother = await taken(other, "member@a.test");
    const inOwn = await taken(other, "admin@b.test");
    expect(inAnother).toBe(inOwn);
    expect(inAnother).not.toMatch(/account|user_id|Account A/i);
    const op = await sessionOf(h, "admin@a.test");
    const res = await h.send("POST", "/api/v1/admin/users", {
      auth: op,
      body: { account_id: h.b.id, email: "member@a.test" },
    });
    const details = expectErrorBody(res, 400, "validation_failed");
    expect(details).toMatchObject({
      account_id: h.a.id,
      user_id: h.services.store.users.byEmail("member@a.test")!.id,
    });
  });
});

describe("the order of checks", () => {
  it("settles a query workspace_id before reading the body", async () => {
    const h = makeHarness();
    const bound = h.key({ workspaceId: h.a.ws1 });
    const res = await h.send("POST", `/api/v1/memories?workspace_id=${h.a.ws2}`, {
      auth: bound,
      raw: JSON.stringify({ kind: "voice", title: "t", content: "x".repeat(1_100_000) }),
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(403);
    expect(res.body.details.error_code).toBe("workspace_mismatch");
  });
});
