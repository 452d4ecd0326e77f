/**
 * Workspace management from a web session (spec §4.11, DESIGN §6): create, rename, make default, delete; keys manage
 * none.
 */
import { describe, expect, it } from "vitest";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody, sessionOf } from "../helpers/http.js";

describe("workspaces from a session", () => {
  it("creates, renames, makes default and deletes a workspace", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "admin@a.test");
    const created = await h.send("POST", "/api/v1/workspaces", { auth: token, body: { name: " Marketing " } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: "Marketing",
      is_default: false,
      created_at: new Date(h.clock.now()).toISOString(),
    });
    expect(created.body.id).toMatch(/^ws_/);
    const id = created.body.id as string;
    const renamed = await h.send("PUT", `/api/v1/workspaces/${id}`, { auth: token, body: { name: "Brand" } });
    expect(renamed.body).toMatchObject({ id, name: "Brand", is_default: false });
    const made = await h.send("PUT", `/api/v1/workspaces/${id}`, { auth: token, body: { is_default: true } });
    expect(made.body.is_default).toBe(true);
    expect((await h.send("GET", `/api/v1/workspaces/${h.a.ws1}`, { auth: token })).body.is_default).toBe(false);
    // The default cannot go while others exist.
    expectErrorBody(await h.send("DELETE", `/api/v1/workspaces/${id}`, { auth: token }), 409, "workspace_not_empty");
    const deleted = await h.send("DELETE", `/api/v1/workspaces/${h.a.ws2}`, { auth: token });
    expect(deleted.body).toEqual({ id: h.a.ws2, deleted: true });
    expectErrorBody(await h.send("GET", `/api/v1/workspaces/${h.a.ws2}`, { auth: token }), 404, "workspace_not_found");
  });

  it("refuses the account's last workspace (409 last_workspace), which is also its default", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "admin@a.test");
    expect((await h.send("DELETE", `/api/v1/workspaces/${h.a.ws2}`, { auth: token })).status).toBe(200);
    const last = expectErrorBody(
      await h.send("DELETE", `/api/v1/workspaces/${h.a.ws1}`, { auth: token }),
      409,
      "last_workspace",
    );
    expect(last.workspace_id).toBe(h.a.ws1);
    expect((await h.send("GET", `/api/v1/workspaces/${h.a.ws1}`, { auth: token })).status).toBe(200);
  });

  it("takes a workspace read and written back: is_default false changes nothing, but the default keeps it (409)", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "admin@a.test");
    const second = (await h.send("GET", `/api/v1/workspaces/${h.a.ws2}`, { auth: token })).body;
    expect(second.is_default).toBe(false);
    const renamed = await h.send("PUT", `/api/v1/workspaces/${h.a.ws2}`, {
      auth: token,
      body: { ...second, name: "Second renamed" },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body).toEqual({ ...second, name: "Second renamed" });
    const first = (await h.send("GET", `/api/v1/workspaces/${h.a.ws1}`, { auth: token })).body;
    expect(first.is_default).toBe(true);
    expect((await h.send("PUT", `/api/v1/workspaces/${h.a.ws1}`, { auth: token, body: first })).body).toEqual(first);
    const unset = await h.send("PUT", `/api/v1/workspaces/${h.a.ws1}`, {
      auth: token,
      body: { name: "Not kept", is_default: false },
    });
    expect(expectErrorBody(unset, 409, "invalid_status")).toMatchObject({
      current_status: "default",
      required_status: "not_default",
      workspace_id: h.a.ws1,
    });
    expect(unset.body.message).toContain("make another workspace the default");
    // Nothing of the refused body was applied.
    expect((await h.send("GET", `/api/v1/workspaces/${h.a.ws1}`, { auth: token })).body).toEqual(first);
  });

  it("deleting a workspace takes the keys bound to it", async () => {
    const h = makeHarness();
    const token = await sessionOf(h, "admin@a.test");
    const bound = h.key({ workspaceId: h.a.ws2 });
    const unbound = h.key();
    await h.send("DELETE", `/api/v1/workspaces/${h.a.ws2}`, { auth: token });
    expectErrorBody(await h.send("GET", "/api/v1/users/me", { auth: bound }), 401);
    expect((await h.send("GET", "/api/v1/users/me", { auth: unbound })).status).toBe(200);
  });

  it("members list and read workspaces but cannot create, rename, make default or delete one (403)", async () => {
    const h = makeHarness();
    const member = await sessionOf(h, "member@a.test");
    expect((await h.send("GET", "/api/v1/workspaces", { auth: member })).body.data).toHaveLength(2);
    expect((await h.send("GET", `/api/v1/workspaces/${h.a.ws2}`, { auth: member })).body.name).toBe("Second");
    const refusals = [
      await h.send("POST", "/api/v1/workspaces", { auth: member, body: { name: "x" } }),
      await h.send("PUT", `/api/v1/workspaces/${h.a.ws2}`, { auth: member, body: { name: "x" } }),
      await h.send("PUT", `/api/v1/workspaces/${h.a.ws2}`, { auth: member, body: { is_default: true } }),
      await h.send("DELETE", `/api/v1/workspaces/${h.a.ws2}`, { auth: member }),
    ];
    for (const res of refusals) expect(expectErrorBody(res, 403, "admin_required").required_role).toBe("admin");
    const kept = h.services.store.workspaces.listByAccount(h.a.id);
    expect(kept.map((w) => [w.name, w.is_default]).sort()).toEqual([
      ["Default", 1],
      ["Second", 0],
    ]);
  });

  it("API keys cannot create, update or delete workspaces (401), whatever their scopes", async () => {
    const h = makeHarness();
    for (const key of [h.key(), h.key({ workspaceId: h.a.ws2 })]) {
      expectErrorBody(await h.send("POST", "/api/v1/workspaces", { auth: key, body: { name: "x" } }), 401);
      expectErrorBody(await h.send("PUT", `/api/v1/workspaces/${h.a.ws2}`, { auth: key, body: { name: "x" } }), 401);
      expectErrorBody(await h.send("DELETE", `/api/v1/workspaces/${h.a.ws2}`, { auth: key }), 401);
    }
    expect(
      h.services.store.workspaces
        .listByAccount(h.a.id)
        .map((w) => w.name)
        .sort(),
    ).toEqual(["Default", "Second"]);
  });
});
