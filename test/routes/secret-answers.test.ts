/**
 * Issue 31 L6: every answer that carries a secret goes with Cache-Control: no-store (RouteDef `secret`/`shownOnce`,
 * runOperation), walked here through each such answer, and held for routes to come by their described fields.
 */
import { describe, expect, it } from "vitest";
import { buildOpenApi } from "../../src/http/openapi.js";
import { ROUTES } from "../../src/routes/index.js";
import { DEFAULT_CONFIG } from "../../src/server/services.js";
import { makeHarness } from "../helpers/harness.js";

const PASSWORD = "correct horse battery staple";

/** Fields whose value is a credential wherever an answer carries one. */
const SECRET_FIELDS = ["token", "key", "password", "access_token", "device_code", "secret"];

describe("answers carrying a secret", () => {
  it("go with no-store: login, new key, generated password, device code and device token", async () => {
    const h = makeHarness();
    const login = await h.send("POST", "/api/v1/auth/login", { body: { email: "admin@a.test", password: PASSWORD } });
    const session = login.body.token;
    const key = await h.send("POST", "/api/v1/api-keys", { auth: session, body: { name: "ci" } });
    const user = await h.send("POST", "/api/v1/admin/users", {
      auth: session,
      body: { account_id: h.a.id, email: "new@a.test" },
    });
    const code = await h.send("POST", "/api/v1/auth/device/code", { body: {} });
    const approve = await h.send("POST", "/api/v1/auth/device/approve", {
      auth: session,
      body: { user_code: code.body.user_code },
    });
    const token = await h.send("POST", "/api/v1/auth/device/token", { body: { device_code: code.body.device_code } });
    const answers = { login, key, user, code, token };
    expect(approve.status).toBe(200);
    for (const [name, res] of Object.entries(answers)) {
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      expect(res.headers.get("cache-control"), name).toBe("no-store");
    }
    expect(typeof token.body.token === "string" || typeof token.body.access_token === "string").toBe(true);
    expect(typeof user.body.password).toBe("string");
  });

  it("keeps answers without a secret cacheable as before", async () => {
    const h = makeHarness();
    const res = await h.send("GET", "/api/v1/templates", { auth: h.key() });
    expect(res.headers.get("cache-control")).toBeNull();
  });

  it("marks every route whose success answer describes a secret field secret or shownOnce", () => {
    const doc = buildOpenApi(ROUTES, DEFAULT_CONFIG, { internal: true }) as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
    };
    const propertiesOf = (schema: { $ref?: string; properties?: Record<string, unknown> } | undefined) =>
      Object.keys((schema?.$ref ? doc.components.schemas[schema.$ref.split("/").at(-1)!] : schema)?.properties ?? {});
    const carrying = ROUTES.filter((r) => {
      const op = doc.paths[r.path]?.[r.method.toLowerCase()];
      if (!op) return false;
      return Object.entries(op.responses)
        .filter(([status]) => status.startsWith("2"))
        .some(([, response]) => {
          const json = response.content?.["application/json"] as { schema?: { $ref?: string } } | undefined;
          return propertiesOf(json?.schema).some((name) => SECRET_FIELDS.includes(name));
        });
    });
    expect(carrying.map((r) => r.operationId)).toEqual(
      expect.arrayContaining(["login", "createApiKey", "adminCreateUser"]),
    );
    for (const r of carrying) expect(r.secret === true || r.shownOnce !== undefined, r.operationId).toBe(true);
  });
});
