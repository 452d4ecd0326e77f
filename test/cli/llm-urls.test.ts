import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cli, tempDir } from "../helpers/cli.js";

describe("serve's model server URLs", () => {
  it.each([
    [["--llm-base-url", "http://ops:hunter2@127.0.0.1:11434", "--llm-model", "llama3.1"], {}, "--llm-base-url"],
    [["--image-base-url", "https://ops:hunter2@images.local", "--image-model", "sdxl"], {}, "--image-base-url"],
    [
      ["--llm-model", "llama3.1"],
      { CONTENT_SERVICE_LLM_BASE_URL: "http://ops:hunter2@127.0.0.1:11434" },
      "--llm-base-url",
    ],
  ])("refuses a URL with a user name and password as a usage error (%j)", (args, env, option) => {
    const dir = tempDir();
    const run = cli(["serve", "--data-dir", dir, "--port", "0", ...args], { env });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(option);
    expect(run.stderr).toMatch(/user name or password/);
    expect(run.stderr + run.stdout).not.toContain("hunter2");
    // Refused before anything is done: the data directory is not even initialised.
    expect(existsSync(path.join(dir, "content-service.db"))).toBe(false);
  });
});
