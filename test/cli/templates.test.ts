/** `templates create|list|delete`: an account's own templates from the command line, by POST /templates' rules. */
import { describe, expect, it } from "vitest";
import { cli, initDir } from "../helpers/cli.js";

describe("templates on the command line", () => {
  it("creates from role:words[:heading] items, lists the account's own, and deletes one", () => {
    const { d } = initDir();
    const made = cli([
      "templates",
      "create",
      ...d,
      "--account",
      "1",
      "--name",
      "Case study",
      "--sections",
      "headline:12,context:120:The problem: before,cta:40",
      "--tone",
      "persuasive",
      "--json",
    ]);
    expect(made.status, made.stderr).toBe(0);
    const t = made.json();
    expect(t).toMatchObject({
      account_id: 1,
      name: "Case study",
      tone: "persuasive",
      target_words: 172,
      built_in: false,
    });
    expect(t.sections).toMatchObject([
      { key: "headline", role: "headline", words: 12, heading: null },
      { key: "context", role: "context", words: 120, heading: "The problem: before" },
      { key: "cta", role: "cta", words: 40 },
    ]);
    const list = cli(["templates", "list", ...d, "--account", "1"]);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${t.id} +Case study +custom +article +persuasive +172 +3 +false `, "m"));
    expect(list.stdout.trim().split("\n")).toHaveLength(2);
    const all = cli(["templates", "list", ...d, "--account", "1", "--built-in", "--json"]).json();
    expect(all.filter((x: { built_in: boolean }) => x.built_in).length).toBeGreaterThanOrEqual(8);
    const deleted = cli(["templates", "delete", ...d, String(t.id)]);
    expect(deleted.status, deleted.stderr).toBe(0);
    expect(deleted.stdout).toBe(
      `deleted template ${t.id} "Case study" account=1 sections=3 target_words=172 tone=persuasive\n`,
    );
    expect(cli(["templates", "list", ...d, "--account", "1"]).stdout).toBe("(none)\n");
  });

  it("takes sections as JSON, and refuses what POST /templates refuses, with one clear line", () => {
    const { d } = initDir();
    const json = JSON.stringify([{ role: "hook", words: 50, instruction: "Open with the cost." }]);
    const base = ["templates", "create", ...d, "--account", "1", "--name", "Pitch"];
    const made = cli([...base, "--sections", json, "--json"]);
    expect(made.status, made.stderr).toBe(0);
    expect(made.json().sections).toEqual([
      { key: "hook", heading: null, role: "hook", words: 50, instruction: "Open with the cost." },
    ]);
    const taken = cli([...base, "--sections", "hook:10"]);
    expect(taken.status).toBe(1);
    expect(taken.stderr).toMatch(/Template \d+ of this account is named "Pitch"/);
    const badRole = cli([...base.slice(0, -1), "Other", "--sections", "poem:10"]);
    expect(badRole.status).toBe(2);
    expect(badRole.stderr).toMatch(/invalid template: .*role/);
    const badWords = cli([...base.slice(0, -1), "Other", "--sections", "hook:many"]);
    expect(badWords.status).toBe(2);
    expect(badWords.stderr).toMatch(/invalid template: .*words/);
    expect(cli([...base.slice(0, -1), "Other", "--sections", "[oops"]).stderr).toMatch(/--sections is not valid JSON/);
  });

  it("never deletes a built-in template, and names the list command for an unknown id", () => {
    const { d } = initDir();
    const builtIn = cli(["templates", "delete", ...d, "1"]);
    expect(builtIn.status).toBe(1);
    expect(builtIn.stderr).toMatch(/Template 1 is built in: it cannot be changed or deleted/);
    const unknown = cli(["templates", "delete", ...d, "9999"]);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(
      /no template 9999 in this data directory: `content-service templates list --account ID/,
    );
    const noAccount = cli(["templates", "list", ...d, "--account", "7"]);
    expect(noAccount.status).toBe(1);
  });
});
