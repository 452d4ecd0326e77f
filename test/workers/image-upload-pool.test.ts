/**
 * An upload's byte work (decoding base64, recognising the image, hashing it) runs on the worker pool, not on the
 * thread answering requests (src/domain/images/upload.ts readUpload), and answers what it did there: the same records and
 * the same coded errors from a running server's threads as from the inline pool.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount, issueKey } from "../../src/domain/admin.js";
import { MAX_IMAGE_BYTES } from "../../src/domain/images/formats.js";
import type { App } from "../../src/http/app.js";
import { memoryLogger } from "../../src/runtime/log.js";
import { type RunningServer, startServer } from "../../src/server/start.js";
import type { TaskName } from "../../src/workers/tasks.js";
import { makeHarness } from "../helpers/harness.js";
import { jpeg, png, webp } from "../helpers/images.js";
import { hookedPool } from "../helpers/pools.js";

/** One upload through an app: a multipart form with the bytes as `file`, or JSON. */
async function upload(app: App, key: string, body: { file: Uint8Array; name?: string } | Record<string, unknown>) {
  let init: RequestInit;
  if (body.file instanceof Uint8Array) {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(body.file)]), (body.name as string | undefined) ?? "up.bin");
    init = { method: "POST", headers: { authorization: `Bearer ${key}` }, body: form };
  } else
    init = {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    };
  const res = await app.handle(new Request("http://test.local/api/v1/images", init), { remoteAddress: "127.0.0.1" });
  const answer = await res.json();
  // What may differ between two servers: ids, times and trace ids.
  const { id: _id, created_at: _at, trace_id: _trace, ...rest } = answer;
  if (res.status !== 201) return { status: res.status, body: rest };
  const content = await app.handle(
    new Request(`http://test.local/api/v1/images/${answer.id}/content`, {
      headers: { authorization: `Bearer ${key}` },
    }),
    { remoteAddress: "127.0.0.1" },
  );
  const stored = createHash("sha256")
    .update(new Uint8Array(await content.arrayBuffer()))
    .digest("hex");
  return { status: res.status, body: rest, etag: content.headers.get("etag"), stored };
}

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const big = png(4, 4, MAX_IMAGE_BYTES);
const corrupt = webp(10, 10, "lossy");
corrupt[23] = 0;
/** Every outcome of an upload: each image way of sending, and each refusal with its code, path and message. */
const CASES: { name: string; body: { file: Uint8Array; name?: string } | Record<string, unknown> }[] = [
  { name: "a 10 MiB PNG by multipart", body: { file: big, name: "big.png" } },
  { name: "a 10 MiB PNG by JSON", body: { filename: "big.png", data_base64: b64(big) } },
  { name: "a JPEG in wrapped base64 with a data: prefix", body: { data_base64: `data:;base64,${b64(jpeg(33, 44))}` } },
  { name: "a small PNG by multipart", body: { file: png(3, 2), name: "small.png" } },
  { name: "10 MiB + 1 by multipart", body: { file: png(4, 4, MAX_IMAGE_BYTES + 1) } },
  { name: "10 MiB + 1 by JSON", body: { data_base64: b64(png(4, 4, MAX_IMAGE_BYTES + 1)) } },
  { name: "base64 that is not", body: { data_base64: "iVBOR***" } },
  { name: "an empty data_base64", body: { data_base64: "" } },
  { name: "an empty file", body: { file: new Uint8Array(0) } },
  { name: "text by multipart", body: { file: new TextEncoder().encode("just notes\n"), name: "notes.png" } },
  { name: "text by JSON", body: { data_base64: b64(new TextEncoder().encode("just notes\n")) } },
  { name: "a corrupt WebP by JSON", body: { data_base64: b64(corrupt) } },
  { name: "a truncated PNG by multipart", body: { file: png(3, 2).subarray(0, 20) } },
];

describe("an upload's byte work", () => {
  it("is a task of the worker pool: the upload waits for it while other requests are answered", async () => {
    const names: TaskName[] = [];
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const h = makeHarness({
      pool: hookedPool(async (name) => {
        names.push(name);
        await gate;
      }),
    });
    const key = h.key();
    const json = upload(h.app, key, { data_base64: b64(big) });
    const form = upload(h.app, key, { file: big, name: "big.png" });
    for (let waited = 0; names.length < 2 && waited < 5_000; waited += 5) await new Promise((r) => setTimeout(r, 5));
    expect(names).toEqual(["readUpload", "readUpload"]);
    expect((await h.send("GET", "/api/v1/images", { auth: key })).body.data).toEqual([]);
    release();
    for (const done of [await json, await form]) {
      expect(done.status).toBe(201);
      expect(done.body).toMatchObject({ size_bytes: MAX_IMAGE_BYTES, width: 4, height: 4 });
    }
  });
});

describe("uploads to a running server, whose pool runs on threads of its own", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "cs-uploads-"));
  let server: RunningServer;
  let key: string;
  const h = makeHarness();
  const inlineKey = h.key();

  beforeAll(async () => {
    server = await startServer({ dataDir: dir, host: "127.0.0.1", port: 0, workers: 1, logger: memoryLogger() });
    const store = server.services.store;
    const { account } = createAccount(store, "test", "Uploads", "business", Date.now());
    key = issueKey(store, "test", { accountId: account.id, name: "k", workspaceId: null }).secret;
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(CASES)("answers $name as the inline pool does, and stores the same bytes", async ({ body }) => {
    const threaded = await upload(server.app, key, body);
    const inline = await upload(h.app, inlineKey, body);
    expect(threaded.status).toBe(inline.status);
    expect(threaded.body).toEqual(inline.body);
    expect(threaded.etag).toBe(inline.etag);
    expect(threaded.stored).toBe(inline.stored);
    if (threaded.stored) expect(threaded.etag).toBe(`"${threaded.stored}"`);
  });

  it("gives the codes, paths and messages of the refusals", async () => {
    const outcome = async (name: string) => {
      const r = await upload(server.app, key, CASES.find((c) => c.name === name)!.body);
      return { status: r.status, code: r.body.details?.error_code, issues: r.body.details?.issues };
    };
    expect(await outcome("10 MiB + 1 by multipart")).toMatchObject({ status: 413, code: "payload_too_large" });
    expect(await outcome("10 MiB + 1 by JSON")).toMatchObject({ status: 413, code: "payload_too_large" });
    expect(await outcome("base64 that is not")).toEqual({
      status: 400,
      code: "validation_failed",
      issues: [{ path: "body.data_base64", message: "Not valid base64." }],
    });
    expect(await outcome("an empty file")).toEqual({
      status: 400,
      code: "validation_failed",
      issues: [{ path: "body.file", message: "The file is empty." }],
    });
    expect(await outcome("text by multipart")).toMatchObject({ status: 415, code: "unsupported_image_type" });
    expect((await outcome("a truncated PNG by multipart")).issues[0].path).toBe("body.file");
  });
});
