import { describe, expect, it } from "vitest";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";

describe("command-line device authorization", () => {
  it("issues a session token once a signed-in user approves the code", async () => {
    const h = makeHarness();
    const start = await h.send("POST", "/api/v1/auth/device/code", { body: { client_name: "cli" } });
    expect(start.status).toBe(200);
    expect(start.body.user_code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/);
    const pending = await h.send("POST", "/api/v1/auth/device/token", {
      body: { device_code: start.body.device_code },
    });
    expect(pending.status).toBe(400);
    expect(pending.body.details.error_code).toBe("authorization_pending");

    const session = await h.login("member@a.test");
    const approve = await h.send("POST", "/api/v1/auth/device/approve", {
      auth: session,
      body: { user_code: start.body.user_code.toLowerCase().replace("-", "") },
    });
    expect(approve.status).toBe(200);
    const token = await h.send("POST", "/api/v1/auth/device/token", { body: { device_code: start.body.device_code } });
    expect(token.status).toBe(200);
    expect(token.body.user.email).toBe("member@a.test");
    expect((await h.send("GET", "/api/v1/users/me", { auth: token.body.token })).status).toBe(200);
    // Used up.
    const again = await h.send("POST", "/api/v1/auth/device/token", { body: { device_code: start.body.device_code } });
    expect(again.body.details.error_code).toBe("device_code_expired");
  });

  // A public URL with a trailing slash (or a path prefix and one) must not make `…//device`.
  it("gives the dashboard's page as verification_uri under the public URL, with one slash between them", async () => {
    for (const [publicUrl, uri] of [
      ["https://api.example.com/", "https://api.example.com/device"],
      ["https://api.example.com/content/", "https://api.example.com/content/device"],
      ["https://api.example.com/content", "https://api.example.com/content/device"],
    ]) {
      const h = makeHarness({ config: { publicUrl } });
      const start = await h.send("POST", "/api/v1/auth/device/code", { body: {} });
      expect(start.body.verification_uri, publicUrl).toBe(uri);
      expect(start.body.verification_uri_complete, publicUrl).toBe(
        `${uri}?user_code=${encodeURIComponent(start.body.user_code)}`,
      );
    }
  });

  it("opens the approval form at verification_uri_complete, with the user code in the page's address", async () => {
    const h = makeHarness();
    const start = await h.send("POST", "/api/v1/auth/device/code", { body: {} });
    const { pathname, search } = new URL(start.body.verification_uri_complete);
    const page = await h.send("GET", `${pathname}${search}`);
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toBe(`./#/device?user_code=${encodeURIComponent(start.body.user_code)}`);
  });

  // Found by review: a second approval by another user took the sign-in over from the first.
  it("keeps the sign-in of the first approver: another user's approval is 404, the same user's again is 200", async () => {
    const h = makeHarness();
    const start = await h.send("POST", "/api/v1/auth/device/code", { body: { client_name: "cli" } });
    const approve = async (email: string) =>
      h.send("POST", "/api/v1/auth/device/approve", {
        auth: await h.login(email),
        body: { user_code: start.body.user_code },
      });
    expect((await approve("member@a.test")).status).toBe(200);
    const other = await approve("admin@b.test");
    expectErrorBody(other, 404, "device_code_not_found");
    expect((await approve("member@a.test")).status).toBe(200);
    const token = await h.send("POST", "/api/v1/auth/device/token", { body: { device_code: start.body.device_code } });
    expect(token.status).toBe(200);
    expect(token.body.user.email).toBe("member@a.test");
  });

  it("expires codes after ten minutes and refuses API keys on every step", async () => {
    const h = makeHarness();
    const start = await h.send("POST", "/api/v1/auth/device/code", { body: {} });
    h.clock.advance(601_000);
    const session = await h.login("member@a.test");
    const approve = await h.send("POST", "/api/v1/auth/device/approve", {
      auth: session,
      body: { user_code: start.body.user_code },
    });
    expect(approve.status).toBe(404);
    const key = h.key();
    for (const path of ["/api/v1/auth/device/code", "/api/v1/auth/device/token", "/api/v1/auth/device/approve"])
      expect(
        (await h.send("POST", path, { auth: key, body: { device_code: "x", user_code: "ABCD-EFGH" } })).status,
      ).toBe(401);
    expect((await h.send("GET", "/api/v1/auth/oauth/callback?code=x", { auth: key })).status).toBe(401);
    const oauth = await h.send("GET", "/api/v1/auth/oauth/callback?code=x");
    expect(oauth.body.details.error_code).toBe("oauth_not_configured");
  });
});
