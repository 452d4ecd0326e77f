/** The knowledge graph's access rules: each workspace's graph is its own, and another account's is out of reach. */
import { describe, expect, it } from "vitest";
import { ACME, addReference, byId, getGraph } from "../helpers/graph.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

describe("knowledge graph: account isolation and workspace binding", () => {
  it("keeps each workspace's graph to itself, and another account's out", async () => {
    const h = makeHarness();
    const keyA = h.key();
    const keyB = h.key({ account: h.b.id });
    await addReference(h, keyA, ACME);
    await addReference(h, keyA, "Initech moved to Austin. Initech hired Peter Gibbons in Austin.", h.a.ws2);
    await h.services.graph.idle();

    const ws1 = byId((await getGraph(h, keyA)).body.nodes);
    expect(ws1.has("acme-corp")).toBe(true);
    expect(ws1.has("initech")).toBe(false);
    const ws2 = byId((await getGraph(h, keyA, `workspace_id=${h.a.ws2}`)).body.nodes);
    expect(ws2.has("initech")).toBe(true);
    expect(ws2.has("acme-corp")).toBe(false);

    expect((await getGraph(h, keyB)).body.nodes).toEqual([]);
    expectErrorBody(await getGraph(h, keyB, `workspace_id=${h.a.ws1}`), 404, "workspace_not_found");
    expectErrorBody(
      await h.send("GET", `/api/v1/knowledge-graph/entities?q=acme&workspace_id=${h.a.ws1}`, { auth: keyB }),
      404,
      "workspace_not_found",
    );
    const searchB = await h.send("GET", "/api/v1/knowledge-graph/entities?q=acme", { auth: keyB });
    expect(searchB.body.data).toEqual([]);
  });

  it("answers 403 workspace_mismatch to a key bound elsewhere, and shows a bound key its own workspace", async () => {
    const h = makeHarness();
    await addReference(h, h.key(), ACME, h.a.ws1);
    await h.services.graph.idle();
    const bound = h.key({ workspaceId: h.a.ws2 });
    const details = expectErrorBody(await getGraph(h, bound, `workspace_id=${h.a.ws1}`), 403, "workspace_mismatch");
    expect(details).toMatchObject({ bound_workspace_id: h.a.ws2, requested_workspace_id: h.a.ws1 });
    expectErrorBody(
      await h.send("GET", `/api/v1/knowledge-graph/entities?workspace_id=${h.a.ws1}`, { auth: bound }),
      403,
      "workspace_mismatch",
    );
    const own = await getGraph(h, bound);
    expect(own.body).toMatchObject({ workspace_id: h.a.ws2, nodes: [] });
    // A read-only key may read the graph.
    expect((await getGraph(h, h.key({ scopes: ["read"] }))).status).toBe(200);
  });
});
