/**
 * Users' emails (admin-rules.ts Email): one form, Unicode NFC, for every command and route that stores one; control
 * and format characters refused; at most 254 bytes of UTF-8, the local part at most 64, each label of the domain at
 * most 63. Sign-in matches the NFC form, and still finds a user stored before the rules with another form or a longer
 * local part (no migration rewrote them).
 */
import { describe, expect, it } from "vitest";
import { hashPassword } from "../../src/domain/passwords.js";
import { buildOpenApi } from "../../src/http/openapi.js";
import { ROUTES } from "../../src/routes/index.js";
import { DEFAULT_CONFIG } from "../../src/server/services.js";
import { cli, initDir } from "../helpers/cli.js";
import { makeHarness } from "../helpers/harness.js";
import { expectErrorBody } from "../helpers/http.js";
import { requestSchemaOf } from "../helpers/openapi-doc.js";

const PASSWORD = "correct horse battery staple";
/** josé@a.test with é as one code point (NFC) and as e + U+0301 COMBINING ACUTE ACCENT (NFD). */
const NFC = "jos\u00e9@a.test";
const NFD = "jose\u0301@a.test";
type EmailSchema = { maxLength?: number; description?: string };
/**
 * `local`@ a domain of ASCII letters ending in .test, `bytes` long in all (the local part's bytes as given), its labels
 * of 62 letters at most (a label may have 63).
 */
const address = (local: string, bytes: number) => {
  const length = bytes - Buffer.byteLength(local) - 1 - ".test".length;
  const domain = Array.from({ length }, (_, i) => (i % 63 === 62 && i < length - 1 ? "." : "d")).join("");
  return `${local}@${domain}.test`;
};

describe("emails of users", () => {
  it("are stored in NFC, and a second form of the same address is a duplicate", async () => {
    const h = makeHarness();
    const op = await h.login("admin@a.test");
    const created = await h.send("POST", "/api/v1/admin/users", {
      auth: op,
      body: { account_id: h.a.id, email: NFD, password: PASSWORD },
    });
    expect(created.status).toBe(201);
    expect(created.body.user?.email ?? created.body.email).toBe(NFC);
    const again = await h.send("POST", "/api/v1/admin/users", {
      auth: op,
      body: { account_id: h.a.id, email: NFC, password: PASSWORD },
    });
    const details = expectErrorBody(again, 400, "validation_failed");
    expect(details.issues).toEqual([{ path: "body.email", message: expect.any(String) }]);
    // Either form signs in.
    // The third is 64 bytes in NFC, 95 as given (e and a combining accent: three bytes; é: two).
    for (const email of [NFC, NFD]) {
      const res = await h.send("POST", "/api/v1/auth/login", { body: { email, password: PASSWORD } });
      expect(res.status, email).toBe(200);
      expect(res.body.user.email).toBe(NFC);
    }
  });

  it.each([
    ["a zero-width space (Cf)", "ad\u200bmin2@a.test"],
    ["a right-to-left override (Cf)", "\u202eadmin2@a.test"],
    ["a soft hyphen (Cf)", "ad\u00admin2@a.test"],
    ["a control character (Cc)", "ad\u0007min2@a.test"],
    ["a C1 control character (Cc)", "ad\u0085min2@a.test"],
  ])("refuses %s with 400 on body.email", async (_what, email) => {
    const h = makeHarness();
    const op = await h.login("admin@a.test");
    const res = await h.send("POST", "/api/v1/admin/users", { auth: op, body: { account_id: h.a.id, email } });
    const details = expectErrorBody(res, 400, "validation_failed");
    expect(details.issues).toEqual([
      {
        path: "body.email",
        message: `email must have no control or format characters (such as a zero-width space) (got ${JSON.stringify(email)})`,
      },
    ]);
    expect(h.services.store.users.list(h.a.id).map((u) => u.email)).toEqual(["admin@a.test", "member@a.test"]);
  });

  it("takes 254 bytes, counted in NFC, and calls 255 too long", async () => {
    const h = makeHarness();
    const op = await h.login("admin@a.test");
    const at254 = address("x".repeat(64), 254);
    const ok = await h.send("POST", "/api/v1/admin/users", { auth: op, body: { account_id: h.a.id, email: at254 } });
    expect(ok.status).toBe(201);
    // 254 bytes in NFC (é: two bytes) though 255 as given (e and a combining accent: one byte and two); its local part
    // 64 bytes in NFC, 65 as given.
    const nfd254 = address(`${"y".repeat(62)}e\u0301`, 255);
    expect(Buffer.byteLength(nfd254)).toBe(255);
    expect(Buffer.byteLength(nfd254.normalize("NFC"))).toBe(254);
    const folded = await h.send("POST", "/api/v1/admin/users", {
      auth: op,
      body: { account_id: h.a.id, email: nfd254 },
    });
    expect(folded.status).toBe(201);
    const long = await h.send("POST", "/api/v1/admin/users", {
      auth: op,
      body: { account_id: h.a.id, email: address("x".repeat(64), 255) },
    });
    const details = expectErrorBody(long, 400, "validation_failed");
    expect(details.issues).toEqual([
      { path: "body.email", message: "email must be at most 254 bytes of UTF-8 (got 255)" },
    ]);
  });

  it("counts the 254 in bytes of UTF-8, as RFC 5321 does: 131 characters in 255 bytes are too long", async () => {
    const h = makeHarness();
    const op = await h.login("admin@a.test");
    // é (U+00E9) is one character and two bytes, 中 one and three: a local part of 63 bytes in 32 characters, and a
    // domain of 90 characters in 180 bytes and .test, are 128 characters in 249 bytes. The domain is two labels, each
    // within 63 octets in its xn-- form (one label of 90 é would be 96).
    const local = `x${"é".repeat(31)}`;
    const within = `${local}@${"é".repeat(44)}.中${"é".repeat(44)}.test`;
    const over = `${local}@${"é".repeat(45)}.中${"é".repeat(46)}.test`;
    expect([over.length, Buffer.byteLength(over)]).toEqual([131, 255]);
    const ok = await h.send("POST", "/api/v1/admin/users", { auth: op, body: { account_id: h.a.id, email: within } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const long = await h.send("POST", "/api/v1/admin/users", { auth: op, body: { account_id: h.a.id, email: over } });
    expect(expectErrorBody(long, 400, "validation_failed").issues).toEqual([
      { path: "body.email", message: "email must be at most 254 bytes of UTF-8 (got 255)" },
    ]);
    expect(h.services.store.users.list(h.a.id).map((u) => u.email)).not.toContain(over);
    // The description keeps maxLength (a true bound: a character is at least one byte) and says bytes in words.
    const schema = requestSchemaOf(
      buildOpenApi(ROUTES, DEFAULT_CONFIG, { internal: true }),
      "/api/v1/admin/users",
      "post",
    );
    const email: EmailSchema = schema.properties.email;
    expect(email.maxLength).toBe(254);
    expect(email.description).toMatch(/254 bytes of UTF-8/);
    expect(email.description).toMatch(/local part \(before the @\) at most 64/);
  });

  it("takes a local part of 64 bytes, counted in NFC, and calls 65 too long (RFC 5321 §4.5.3.1.1), saying by how much", async () => {
    // Found by review: only the whole address's 254 bytes were counted, so a local part of 200 bytes was stored.
    const h = makeHarness();
    const op = await h.login("admin@a.test");
    const create = (email: string) =>
      h.send("POST", "/api/v1/admin/users", { auth: op, body: { account_id: h.a.id, email } });
    for (const email of [`${"a".repeat(64)}@a.test`, `${"é".repeat(32)}@a.test`, `${"e\u0301".repeat(31)}xx@a.test`]) {
      const res = await create(email);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    for (const [email, received] of [
      [`${"b".repeat(65)}@a.test`, 65],
      // 33 characters, 65 bytes: bytes are what RFC 5321 counts.
      [`${"é".repeat(32)}b@a.test`, 65],
      [`${"c".repeat(200)}@a.test`, 200],
    ] as const) {
      const res = await create(email);
      expect(expectErrorBody(res, 400, "validation_failed").issues, email).toEqual([
        {
          path: "body.email",
          message: `email must have at most 64 bytes of UTF-8 before the "@" (got ${received})`,
        },
      ]);
    }
    // An address past both limits is told both.
    const both = await create(`${"f".repeat(250)}@a.test`);
    expect(expectErrorBody(both, 400, "validation_failed").issues).toEqual([
      { path: "body.email", message: "email must be at most 254 bytes of UTF-8 (got 257)" },
      {
        path: "body.email",
        message: 'email must have at most 64 bytes of UTF-8 before the "@" (got 250)',
      },
    ]);
    expect(h.services.store.users.list(h.a.id).some((u) => /^[bcf]/.test(u.email))).toBe(false);
  });

  it("takes each label of the domain up to 63 octets and calls 64 too long (RFC 1035 §2.3.4), one of other than ASCII counted in its xn-- form", async () => {
    // Found by review: the domain's labels were not counted, so x@<a label of 200 letters>.test was stored, an address
    // no resolver or mail server takes.
    const h = makeHarness();
    const op = await h.login("admin@a.test");
    const create = (email: string) =>
      h.send("POST", "/api/v1/admin/users", { auth: op, body: { account_id: h.a.id, email } });
    for (const email of [
      `x1@${"d".repeat(63)}.test`,
      `x2@a.${"d".repeat(63)}`,
      // One label, as admin@localhost: taken, up to 63 too.
      `x3@${"h".repeat(63)}`,
      // 22 CJK characters are 66 bytes of UTF-8 but an A-label (xn--…) of 28: DNS carries the A-label.
      `x4@${"中".repeat(22)}.test`,
      // 57 é: an A-label of 63.
      `x5@${"é".repeat(57)}.test`,
      // An ideographic full stop separates labels as "." does (UTS #46): two labels of 40 é, each within 63.
      `x6@${"é".repeat(40)}\u3002${"é".repeat(40)}.test`,
    ]) {
      const res = await create(email);
      expect(res.status, `${email}: ${JSON.stringify(res.body)}`).toBe(201);
    }
    for (const [email, received] of [
      [`y1@${"d".repeat(64)}.test`, "64"],
      [`y2@a.${"d".repeat(70)}`, "70"],
      [`y3@${"h".repeat(64)}`, "64"],
      [`y4@a.${"d".repeat(65)}.${"d".repeat(80)}.test`, "80"],
      [`y5@${"é".repeat(58)}.test`, "64 in its xn-- form"],
      // No A-label (IDNA refuses a label mixing right-to-left and Latin letters): counted in bytes of UTF-8.
      [`y6@${"\u05d0a".repeat(30)}.test`, "90"],
    ] as const) {
      const res = await create(email);
      expect(expectErrorBody(res, 400, "validation_failed").issues, email).toEqual([
        {
          path: "body.email",
          message: `email must have at most 63 bytes in each dot-separated part after the "@" (got ${received})`,
        },
      ]);
    }
    // An address past both the local part's limit and a label's is told both.
    const both = await create(`${"f".repeat(65)}@${"d".repeat(64)}.test`);
    expect(expectErrorBody(both, 400, "validation_failed").issues).toEqual([
      {
        path: "body.email",
        message: 'email must have at most 64 bytes of UTF-8 before the "@" (got 65)',
      },
      {
        path: "body.email",
        message: 'email must have at most 63 bytes in each dot-separated part after the "@" (got 64)',
      },
    ]);
    expect(h.services.store.users.list(h.a.id).some((u) => /^[yf]/.test(u.email))).toBe(false);
  });

  it("signs in a user stored before the local-part and label rules, whose local part or a domain label is too long", async () => {
    const h = makeHarness();
    for (const email of [`${"g".repeat(100)}@a.test`, `g@${"d".repeat(100)}.test`]) {
      const user = h.services.store.users.create(
        h.a.id,
        email,
        hashPassword(PASSWORD),
        "member",
        new Date().toISOString(),
      );
      const res = await h.send("POST", "/api/v1/auth/login", { body: { email, password: PASSWORD } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.user.id).toBe(user.id);
    }
  });

  it("signs in a user stored before the rule with a non-NFC email, by either form, without rewriting it", async () => {
    const h = makeHarness();
    const store = h.services.store;
    // As an earlier version stored it: the address as given, in NFD.
    const legacy = store.users.create(h.a.id, NFD, hashPassword(PASSWORD), "member", new Date().toISOString());
    // U+212A KELVIN SIGN is K in NFC: a non-ASCII address whose NFC form is ASCII is found too.
    store.users.create(h.a.id, "\u212a@a.test", hashPassword(PASSWORD), "member", new Date().toISOString());
    for (const [email, id] of [
      [NFC, legacy.id],
      [NFD, legacy.id],
      ["K@a.test", undefined],
    ] as const) {
      const res = await h.send("POST", "/api/v1/auth/login", { body: { email, password: PASSWORD } });
      expect(res.status, email).toBe(200);
      if (id !== undefined) expect(res.body.user.id).toBe(id);
    }
    expect(store.users.byId(legacy.id)?.email).toBe(NFD);
    // A wrong password is still wrong, and an unknown address unknown.
    const wrong = await h.send("POST", "/api/v1/auth/login", { body: { email: NFC, password: `${PASSWORD}!` } });
    expectErrorBody(wrong, 401);
    const unknown = await h.send("POST", "/api/v1/auth/login", {
      body: { email: "nobody@a.test", password: PASSWORD },
    });
    expectErrorBody(unknown, 401);
    // Nor can its NFC twin be created.
    const op = await h.login("admin@a.test");
    const twin = await h.send("POST", "/api/v1/admin/users", { auth: op, body: { account_id: h.a.id, email: NFC } });
    expectErrorBody(twin, 400, "validation_failed");
  });
});

describe("emails on the command line", () => {
  it("users create and init follow the same rule: NFC stored, Cf refused, 254 at most, 64 in the local part", () => {
    const { d } = initDir();
    const made = cli(["users", "create", "--account", "1", "--email", NFD, "--json", ...d]);
    expect(made.status, made.stderr).toBe(0);
    expect(made.json().email).toBe(NFC);
    const twin = cli(["users", "create", "--account", "1", "--email", NFC, ...d]);
    expect(twin.status).toBe(1);
    const zw = cli(["users", "create", "--account", "1", "--email", "a\u200b@a.test", ...d]);
    expect(zw.status).toBe(2);
    expect(zw.stderr).toBe(
      "error: --email holds U+200B, a control or format character (such as a zero-width space): not an email address\n",
    );
    const long = cli(["users", "create", "--account", "1", "--email", `${"x".repeat(249)}@a.test`, ...d]);
    expect(long.status).toBe(2);
    expect(long.stderr).toBe("error: --email is too long: at most 254 bytes of UTF-8, got 256\n");
    // Counted as the limit counts: 128 characters, 255 bytes (each é two bytes in NFC).
    const wide = cli(["users", "create", "--account", "1", "--email", `${"é".repeat(124)}@a.test`, ...d]);
    expect(wide.status).toBe(2);
    expect(wide.stderr).toBe("error: --email is too long: at most 254 bytes of UTF-8, got 255\n");
    const local = cli(["users", "create", "--account", "1", "--email", `${"é".repeat(32)}b@a.test`, ...d]);
    expect(local.status).toBe(2);
    expect(local.stderr).toBe(
      "error: --email's local part (before the @) is too long: at most 64 bytes of UTF-8, got 65\n",
    );
    const initLocal = cli(["init", "--admin-email", `${"h".repeat(70)}@a.test`, ...d]);
    expect(initLocal.status).toBe(2);
    expect(initLocal.stderr).toBe(
      "error: --admin-email's local part (before the @) is too long: at most 64 bytes of UTF-8, got 70\n",
    );
    // A domain label over 63 octets: refused, not taken for a control character.
    const label = `x@${"d".repeat(64)}.test`;
    const longLabel = cli(["users", "create", "--account", "1", "--email", label, ...d]);
    expect(longLabel.status).toBe(2);
    expect(longLabel.stderr).toBe(`error: --email: "${label}" is not an email address\n`);
    const initLabel = cli(["init", "--admin-email", `admin@${"d".repeat(64)}`, ...d]);
    expect(initLabel.status).toBe(2);
    expect(initLabel.stderr).toMatch(/^error: --admin-email: ".*" is not an email address\n$/);
    const init = cli(["init", "--admin-email", "ad\u202emin@a.test", ...d]);
    expect(init.status).toBe(2);
    expect(init.stderr).toMatch(/^error: --admin-email holds U\+202E, a control or format character/);
    expect(
      cli(["users", "list", "--json", ...d])
        .json()
        .map((u: { email: string }) => u.email),
    ).toEqual(["admin@localhost", NFC]);
  });
});
