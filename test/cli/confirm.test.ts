/** confirmDeletion (cli/confirm.ts): asks on a terminal, needs --yes elsewhere, and no is the default answer. */
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { confirmDeletion } from "../../src/cli/confirm.js";
import { CliError, UsageError } from "../../src/cli/errors.js";

function terminal(answer: string, isTTY = true) {
  const input = Object.assign(new PassThrough(), { isTTY });
  const output = new PassThrough();
  let asked = "";
  output.on("data", (c: Buffer) => {
    asked += c.toString();
  });
  input.end(answer);
  return { asker: { input, output }, asked: () => asked };
}

describe("confirmDeletion", () => {
  it("asks y/N on a terminal and goes on for y or yes", async () => {
    for (const answer of ["y\n", "YES\n"]) {
      const t = terminal(answer);
      await confirmDeletion("delete workspace ws_1", { declined: "not deleted" }, t.asker);
      expect(t.asked()).toBe("delete workspace ws_1? [y/N] ");
    }
  });

  it("stops on any other answer, an empty one included", async () => {
    for (const answer of ["\n", "n\n", "yep\n", ""]) {
      const t = terminal(answer);
      await expect(confirmDeletion("delete it", { declined: "not deleted" }, t.asker)).rejects.toThrow(
        new CliError("not deleted"),
      );
    }
  });

  it("needs --yes where standard input is not a terminal, and asks nothing with it", async () => {
    const piped = terminal("y\n", false);
    await expect(confirmDeletion("delete it", { declined: "no" }, piped.asker)).rejects.toThrow(UsageError);
    await expect(confirmDeletion("delete it", { declined: "no" }, piped.asker)).rejects.toThrow(/give --yes/);
    const t = terminal("n\n");
    await confirmDeletion("delete it", { yes: true, declined: "no" }, t.asker);
    expect(t.asked()).toBe("");
  });
});
