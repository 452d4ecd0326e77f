import { describe, expect, it } from "vitest";
import { hashKey } from "../../src/domain/apikeys.js";
import { FixtureError } from "../../src/sandbox/fixtures.js";
import { parseFixture } from "../../src/sandbox/fixtures-file.js";
import type { Fixture } from "../../src/sandbox/fixtures-schema.js";
import { makeFixtureHarness, removedAfterEach } from "../helpers/sandbox.js";

const KEY = `svc_live_${"A1b2C3d4".repeat(4)}`;
const OTHER = `svc_live_${"Zz09".repeat(8)}`;
const SMALLEST = `{"accounts": [{"name": "Acme", "plan": "agency", "workspaces": [{"name": "Main"}],
  "keys": [{"name": "ci", "key": "${KEY}"}]}]}`;

const track = removedAfterEach();
const harness = async (fixture: Fixture) => track(await makeFixtureHarness(fixture));

/** The FixtureError's one line for a text. */
function refusal(text: string, format: "json" | "yaml" = "json"): string {
  try {
    parseFixture(text, format);
  } catch (e) {
    expect(e).toBeInstanceOf(FixtureError);
    return (e as Error).message;
  }
  throw new Error("accepted");
}

describe("the smallest fixture", () => {
  it("makes the account, its workspace and a key that authenticates, stored hashed, bound to its one workspace", async () => {
    const h = await harness(parseFixture(SMALLEST, "json"));
    const res = await h.sendSandbox("GET", "/api/v1/api-keys/current", { auth: KEY });
    expect(res.status).toBe(200);
    const row = h.services.store.apiKeys.byHash(hashKey(KEY));
    expect(row?.name).toBe("ci");
    expect(JSON.stringify(row)).not.toContain(KEY);
    const ws = h.services.store.workspaces.byId(row!.workspace_id!);
    expect(ws).toMatchObject({ name: "Main", is_default: 1 });
    expect(h.services.store.accounts.byId(row!.account_id)).toMatchObject({ name: "Acme", plan: "agency" });
  });

  it("reads the same from YAML", async () => {
    const yaml = `accounts:\n  - name: Acme\n    plan: agency\n    workspaces:\n      - name: Main\n    keys:\n      - name: ci\n        key: ${KEY}\n`;
    expect(parseFixture(yaml, "yaml")).toEqual(parseFixture(SMALLEST, "json"));
  });
});

describe("a full fixture", () => {
  const full: Fixture = {
    accounts: [
      {
        name: "Roofs Ltd",
        plan: "business",
        workspaces: [
          {
            name: "Blog",
            references: [{ title: "Mounting", content: "Flat roofs need ballast mounts.", format: "text" }],
            memories: [{ kind: "context", content: "Owners of flat roofs." }],
            contents: [
              { title: "A draft", content: "Notes on ballast." },
              { title: "Solar Panels on Flat Roofs", status: "generated" },
              { title: "Done", content: "Ballast holds panels without drilling.", status: "finalized" },
              {
                title: "Out",
                content: "Two days per roof.",
                status: "published",
                scheduled_publish_at: "2026-12-01",
              },
            ],
          },
          { name: "Social" },
        ],
        users: [{ email: "ana@roofs.test", password: "correct horse battery", role: "admin" }],
        keys: [
          { name: "ci", key: KEY, workspace: null },
          { name: "social", key: OTHER, workspace: "Social", scopes: ["read"] },
        ],
        templates: [{ name: "Short update", sections: [{ role: "hook", words: 40 }] }],
      },
    ],
  };

  it("makes the records through the API, in the states asked, and users who sign in", async () => {
    const h = await harness(full);
    const blog = h.sandbox.loaded!.accounts[0].workspaces[0].id;
    const list = async (path: string) =>
      (await h.sendSandbox("GET", `${path}?workspace_id=${blog}`, { auth: KEY })).body.data;
    expect((await list("/api/v1/reference-materials")).map((r: { title: string }) => r.title)).toEqual(["Mounting"]);
    expect((await list("/api/v1/memories")).map((m: { content: string }) => m.content)).toEqual([
      "Owners of flat roofs.",
    ]);
    const statuses = Object.fromEntries(
      (await list("/api/v1/contents")).map((c: { title: string; status: string }) => [c.title, c.status]),
    );
    expect(statuses).toEqual({
      "A draft": "draft",
      "Solar Panels on Flat Roofs": "generated",
      Done: "finalized",
      Out: "published",
    });
    const templates = (await h.sendSandbox("GET", "/api/v1/templates", { auth: KEY })).body.data;
    expect(templates.some((t: { name: string }) => t.name === "Short update")).toBe(true);
    expect(await h.login("ana@roofs.test", "correct horse battery")).toBeTruthy();
  });

  it("binds keys as asked: unbound, or to the workspace named, with its scopes", async () => {
    const h = await harness(full);
    const social = h.sandbox.loaded!.accounts[0].workspaces[1].id;
    expect(h.services.store.apiKeys.byHash(hashKey(KEY))?.workspace_id).toBeNull();
    const row = h.services.store.apiKeys.byHash(hashKey(OTHER));
    expect(row?.workspace_id).toBe(social);
    const write = await h.sendSandbox("POST", "/api/v1/memories", {
      auth: OTHER,
      body: { kind: "context", content: "x" },
    });
    expect(write.status).toBe(403);
  });

  it("is the state a reset goes back to", async () => {
    const h = await harness(full);
    const blog = h.sandbox.loaded!.accounts[0].workspaces[0].id;
    await h.sendSandbox("POST", `/api/v1/memories?workspace_id=${blog}`, {
      auth: KEY,
      body: { kind: "context", content: "Later." },
    });
    await h.sendSandbox("POST", "/_sandbox/reset");
    const memories = (await h.sendSandbox("GET", `/api/v1/memories?workspace_id=${blog}`, { auth: KEY })).body.data;
    expect(memories.map((m: { content: string }) => m.content)).toEqual(["Owners of flat roofs."]);
  });
});

describe("a fixture that cannot be used", () => {
  it("names the JSON path of a field that breaks the schema", () => {
    expect(refusal(SMALLEST.replace(KEY, "svc_live_short"))).toMatch(/^accounts\[0\]\.keys\[0\]\.key: /);
    expect(refusal(SMALLEST.replace('"agency"', '"gold"'))).toMatch(/^accounts\[0\]\.plan: /);
    expect(refusal(SMALLEST.replace('"name": "Main"', '"name": "Main", "colour": 1'))).toMatch(
      /^accounts\[0\]\.workspaces\[0\]\.colour: /,
    );
    expect(refusal('{"accounts": {}}')).toMatch(/^accounts: /);
  });

  it("says a file is not JSON or not YAML, on one line", () => {
    for (const [text, format] of [
      ["{nope", "json"],
      ["a: [1,\n  b", "yaml"],
    ] as const) {
      const line = refusal(text, format);
      expect(line).toMatch(/^\(file\): not (JSON|YAML): /);
      expect(line).not.toContain("\n");
    }
  });

  it("names the record an operation refused, with the API's reason", async () => {
    const bad: Fixture = {
      accounts: [
        {
          name: "Acme",
          plan: "agency",
          workspaces: [{ name: "Main", memories: [{ kind: "context", content: "ok" }, { kind: "nonsense" }] }],
        },
      ],
    };
    await expect(harness(bad)).rejects.toThrow(/^accounts\[0\]\.workspaces\[0\]\.memories\[1\]/);
  });

  it("refuses a key's secret given twice, or a key bound to a workspace the account lacks", async () => {
    const twice = parseFixture(SMALLEST.replace('"key": "', `"key": "${KEY}"}, {"name": "b", "key": "`), "json");
    await expect(harness(twice)).rejects.toThrow(/^accounts\[0\]\.keys\[1\]\.key: .*another key/);
    const unknown = parseFixture(SMALLEST.replace('"ci",', '"ci", "workspace": "Nope",'), "json");
    await expect(harness(unknown)).rejects.toThrow(/^accounts\[0\]\.keys\[0\]\.workspace: no workspace Nope/);
  });
});

describe("the docs' examples (docs/sandbox.md Fixtures)", () => {
  it("are fixtures, the same in JSON and YAML", async () => {
    const { readFileSync } = await import("node:fs");
    const doc = readFileSync(new URL("../../docs/sandbox.md", import.meta.url), "utf8");
    const section = doc.slice(doc.indexOf("## Fixtures"));
    const block = (lang: string) => new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(section)?.[1] ?? "";
    const json = parseFixture(block("json"), "json");
    expect(json.accounts[0].keys?.[0].key).toMatch(/^svc_live_/);
    expect(parseFixture(block("yaml"), "yaml")).toEqual(json);
  });
});
