/**
 * `templates`: create, list and delete an account's own templates, by the rules of POST and DELETE /templates
 * (routes/templates.ts TemplateBody, domain/templates.ts). Tests: test/cli/templates.test.ts.
 */
import type { Command } from "commander";
import { Option } from "commander";
import { TEMPLATE_FORMATS, TEMPLATE_TONES, type TemplateRow } from "../../db/templates.js";
import { ApiError } from "../../domain/errors.js";
import { createTemplate, deleteTemplate, type TemplateInput } from "../../domain/templates.js";
import { templateView } from "../../domain/views/templates.js";
import { parseBodyInput } from "../../http/validate.js";
import { TemplateBody } from "../../routes/templates.js";
import { positiveInt } from "../args.js";
import { withReadStore, withStore } from "../database.js";
import { UsageError } from "../errors.js";
import { printable, printJson, printTable, wantsJson } from "../output.js";
import { accountOf, notFound, requireListedAccount } from "./lookup.js";

/** Adds `templates` and its subcommands to the program. */
export function registerTemplatesCommands(program: Command): void {
  const templates = program
    .command("templates")
    .description("An account's own templates: the sections, length and tone its generations may follow");
  addTemplatesCreate(templates);
  addTemplatesList(templates);
  addTemplatesDelete(templates);
}

interface CreateOptions {
  account: number;
  name: string;
  sections: string;
  targetWords?: number;
  tone?: string;
  format?: string;
  category?: string;
  description?: string;
}

/**
 * The sections as --sections gives them: a JSON array of POST /templates' sections, or `role:words[:heading]` items
 * separated by commas (`headline:12,context:120:The problem,cta:40`); the schema checks what they hold.
 */
function sectionsArg(text: string): unknown {
  if (text.trim().startsWith("[")) {
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new UsageError(`--sections is not valid JSON: ${(e as Error).message}`);
    }
  }
  return text.split(",").map((item) => {
    const [role, words, ...heading] = item.split(":");
    return {
      role: role.trim(),
      words: /^\s*\d+\s*$/.test(words ?? "") ? Number(words) : words,
      ...(heading.length ? { heading: heading.join(":") } : {}),
    };
  });
}

/** The template the options describe, checked by POST /templates' schema: a usage error naming what is wrong. */
function templateInput(opts: CreateOptions): TemplateInput {
  const body = {
    name: opts.name,
    sections: sectionsArg(opts.sections),
    target_words: opts.targetWords,
    tone: opts.tone,
    format: opts.format,
    category: opts.category,
    description: opts.description,
  };
  try {
    return parseBodyInput(TemplateBody, body);
  } catch (e) {
    if (!(e instanceof ApiError) || e.code !== "validation_failed") throw e;
    const issues = e.details.issues as { message: string }[];
    throw new UsageError(`invalid template: ${issues.map((i) => i.message).join("; ")}`);
  }
}

/** One line for a template. */
function templateLine(t: TemplateRow): string {
  return (
    `template ${t.id} "${printable(t.name)}" account=${t.account_id} sections=${t.sections.length} ` +
    `target_words=${t.target_words} tone=${t.tone}\n`
  );
}

/** Adds `templates create`. */
function addTemplatesCreate(templates: Command): void {
  templates
    .command("create")
    .description("Create a template of an account's own (POST /templates)")
    .requiredOption("--account <id>", "account id", positiveInt("--account"))
    .requiredOption("--name <name>", "template name (1 to 100 characters, unique among the account's own)")
    .requiredOption(
      "--sections <list>",
      'role:words[:heading] items separated by commas ("headline:12,context:120:The problem,cta:40"), or a JSON ' +
        "array of sections ({role, words, heading, instruction, key})",
    )
    .option(
      "--target-words <n>",
      "about how many words a piece has (default: the sections' words added up)",
      positiveInt("--target-words"),
    )
    .addOption(new Option("--tone <tone>", "the voice it asks for (default: professional)").choices(TEMPLATE_TONES))
    .addOption(new Option("--format <format>", "the layout it produces (default: article)").choices(TEMPLATE_FORMATS))
    .option("--category <name>", "its category, a filter of GET /templates (default: custom)")
    .option("--description <text>", "what the template is for")
    .option("--json", "print the template as JSON")
    .action((opts: CreateOptions, cmd: Command) => {
      const input = templateInput(opts);
      return withStore(cmd, (store) => {
        accountOf(cmd, store, opts.account);
        const t = createTemplate(store, opts.account, input, Date.now());
        if (wantsJson(cmd)) return printJson({ ...templateView(t), account_id: t.account_id });
        process.stdout.write(templateLine(t));
      });
    });
}

/** Adds `templates list`. */
function addTemplatesList(templates: Command): void {
  templates
    .command("list")
    .description("List an account's own templates (with --built-in, the built-in ones too)")
    .requiredOption("--account <id>", "account id", positiveInt("--account"))
    .option("--built-in", "also list the built-in templates every account sees")
    .option("--json", "print as JSON, sections included")
    .action((opts: { account: number; builtIn?: boolean }, cmd: Command) =>
      withReadStore(cmd, (store) => {
        requireListedAccount(cmd, store, opts.account);
        // Ten built-in ones and at most OWN_TEMPLATE_LIMIT of the account's: one page holds them all.
        const rows = store.templates
          .list({ accountId: opts.account, afterId: 0, limit: 1_000 })
          .filter((t) => opts.builtIn || t.account_id !== null);
        if (wantsJson(cmd)) return printJson(rows.map(templateView));
        printTable(
          rows.map((t) => ({ ...templateView(t), sections: t.sections.length })),
          ["id", "name", "category", "format", "tone", "target_words", "sections", "built_in", "created_at"],
        );
      }),
    );
}

/** Adds `templates delete`. */
function addTemplatesDelete(templates: Command): void {
  templates
    .command("delete")
    .description(
      "Delete a template of an account's own; contents made from it keep their text (DELETE /templates/{id})",
    )
    .argument("<id>", "template id", positiveInt("the template id"))
    .option("--json", "print the deleted template as JSON")
    .action((id: number, _opts, cmd: Command) =>
      withStore(cmd, (store) => {
        const t = store.templates.byId(id);
        if (!t)
          throw notFound(
            cmd,
            `template ${id} in this data directory`,
            "templates list --account ID",
            "an account's templates",
          );
        // As its own account deletes it: a built-in one is refused (template_built_in), whoever asks.
        const deleted = deleteTemplate(store, t.account_id ?? 0, id);
        if (wantsJson(cmd))
          return printJson({ ...templateView(deleted), account_id: deleted.account_id, deleted: true });
        process.stdout.write(`deleted ${templateLine(deleted)}`);
      }),
    );
}
