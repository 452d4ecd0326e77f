/**
 * Writes the generated parts of docs/cli.md and docs/configuration.md from the commander program (`npm run docs:cli`),
 * so that every command, flag and environment variable is documented as the program defines it.
 * test/cli/cli-docs.test.ts fails when the committed files differ from what this writes.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Argument, Command, Option } from "commander";
import { buildProgram } from "../src/cli/program.js";

/** The marker lines between which the generated text stands; what is outside them is written by hand and kept. */
export const START = "<!-- generated:start (npm run docs:cli writes this part; edit src/cli/*.ts instead) -->";
export const END = "<!-- generated:end -->";

/** The files this script writes, relative to the repository's root. */
export const DOC_FILES = { cli: "docs/cli.md", configuration: "docs/configuration.md" } as const;

/** An environment variable the program reads without a flag: what it sets and its default. */
interface PlainVariable {
  name: string;
  sets: string;
  default: string;
}

/** The variables read outside commander (src/runtime/assets.ts, src/cli/serve/start.ts, src/workers/pool.ts). */
const PLAIN_VARIABLES: PlainVariable[] = [
  {
    name: "CONTENT_SERVICE_LLM_API_KEY",
    sets: "`serve`: the API key sent as `Authorization: Bearer` to the model server of `--llm-base-url`",
    default: "none (no Authorization header)",
  },
  {
    name: "CONTENT_SERVICE_IMAGE_API_KEY",
    sets: "`serve`: the API key sent to the images endpoint of `--image-base-url`",
    default: "`CONTENT_SERVICE_LLM_API_KEY`",
  },
  {
    name: "CONTENT_SERVICE_CACHE_DIR",
    sets:
      "the single executable: the folder it writes its embedded SQLite addon and worker bundle to, once per build " +
      "(a folder of this user's, not writable by others)",
    default: "`$XDG_CACHE_HOME/content-service`, else `~/.cache/content-service`, else `$TMPDIR/content-service-<uid>`",
  },
  {
    name: "CONTENT_SERVICE_WORKER_NICENESS",
    sets: "internal: set by the server for its own worker threads (their scheduling priority); do not set it",
    default: "set by the server",
  },
  {
    name: "CONTENT_SERVICE_WORKER_IDLE",
    sets: "internal: set by the server for its background worker threads (idle scheduling class); do not set it",
    default: "set by the server",
  },
  {
    name: "CONTENT_SERVICE_WORKER_WARM",
    sets: "internal: set by the server for its generation threads (load the language library as they start); do not set it",
    default: "set by the server",
  },
  {
    name: "CONTENT_SERVICE_WORKER_RECYCLE_MB",
    sets: "internal: set by the server for its worker threads (the heap past which a thread is replaced); do not set it",
    default: "set by the server (256)",
  },
  {
    name: "CONTENT_SERVICE_INTERNAL_SEED",
    sets: "internal: set by `serve --sandbox --seed` for its worker threads (their ids drawn from the seed); do not set it",
    default: "set by the server",
  },
];

/** The command's name as typed: `content-service keys create`. */
function fullName(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

function everyCommand(command: Command): Command[] {
  return [command, ...command.commands.flatMap(everyCommand)];
}

/** Text for a table cell: one line, its pipes escaped, and `<` outside code spans (`<data-dir>` is no HTML tag). */
function cell(text: string): string {
  return text
    .replace(/\s*\n\s*/g, " ")
    .replace(/\|/g, "\\|")
    .split("`")
    .map((part, i) => (i % 2 === 0 ? part.replace(/</g, "\\<") : part))
    .join("`");
}

function sentence(text: string): string {
  const t = text.trim();
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

function choicesOf(item: Option | Argument): string {
  return item.argChoices ? item.argChoices.map((c) => `\`${c}\``).join(", ") : "";
}

/** A help text's closing "(default: …)", said by options whose default is decided when the command runs. */
const SAID_DEFAULT = /\s*\(default: (.+)\)$/;

function defaultOf(item: Option | Argument): string {
  if (item.defaultValueDescription) return item.defaultValueDescription;
  if (item.defaultValue === undefined) return SAID_DEFAULT.exec(item.description)?.[1] ?? "";
  return `\`${typeof item.defaultValue === "string" ? item.defaultValue : JSON.stringify(item.defaultValue)}\``;
}

/** A help text without the default its own column shows. */
function describe(item: Option | Argument): string {
  return cell(item.description.replace(SAID_DEFAULT, ""));
}

function argumentsTable(command: Command): string[] {
  const args = command.registeredArguments;
  if (args.length === 0) return [];
  const rows = args.map((a) => {
    const name = a.required ? `<${a.name()}>` : `[${a.name()}]`;
    return `| \`${name}\` | ${describe(a)} | ${choicesOf(a)} |`;
  });
  return ["| argument | meaning | choices |", "|---|---|---|", ...rows, ""];
}

function optionsTable(options: readonly Option[]): string[] {
  const shown = options.filter((o) => !o.hidden);
  if (shown.length === 0) return [];
  const rows = shown.map((o) => {
    const flag = `\`${o.flags}\`${o.mandatory ? " (required)" : ""}`;
    const env = o.envVar ? `\`${o.envVar}\`` : "";
    return `| ${flag} | ${describe(o)} | ${cell(defaultOf(o))} | ${env} | ${choicesOf(o)} |`;
  });
  return ["| flag | what it sets | default | environment | choices |", "|---|---|---|---|---|", ...rows, ""];
}

function commandSection(command: Command): string[] {
  const depth = command.parent?.parent ? 4 : 3;
  const lines = [`${"#".repeat(depth)} \`${fullName(command)}\``, "", sentence(command.description()), ""];
  lines.push("```", `${fullName(command)} ${command.usage()}`, "```", "");
  lines.push(...argumentsTable(command), ...optionsTable(command.options));
  return lines;
}

/** The generated part of docs/cli.md: every command with its usage, arguments and flags. */
export function cliReference(program: Command = buildProgram()): string {
  const lines = ["## Commands", ""];
  lines.push(...everyCommand(program).flatMap(commandSection));
  return lines.join("\n").trimEnd();
}

/** A variable that sets a flag: which flags of which commands, and their defaults. */
interface FlagVariable {
  name: string;
  uses: { command: string; option: Option }[];
}

function flagVariables(program: Command): FlagVariable[] {
  const byName = new Map<string, FlagVariable>();
  for (const command of everyCommand(program))
    for (const option of command.options) {
      if (!option.envVar) continue;
      const entry = byName.get(option.envVar) ?? { name: option.envVar, uses: [] };
      entry.uses.push({ command: command.parent ? fullName(command).replace(/^\S+ /, "") : "every command", option });
      byName.set(option.envVar, entry);
    }
  return [...byName.values()];
}

function flagVariableRow(variable: FlagVariable): string {
  const first = variable.uses[0].option;
  const flags = `\`${first.long}\` (${variable.uses.map((u) => u.command).join(", ")})`;
  // Commands whose defaults differ are named with theirs (`serve`: …; `openapi`: …), so that none reads as a merge.
  const byDefault = variable.uses.map((u) => ({ command: u.command, value: cell(defaultOf(u.option)) }));
  const distinct = [...new Set(byDefault.map((d) => d.value))].filter(Boolean);
  const defaults =
    distinct.length > 1
      ? byDefault
          .filter((d) => d.value)
          .map((d) => `${d.command}: ${d.value}`)
          .join("; ")
      : (distinct[0] ?? "");
  return `| \`${variable.name}\` | ${flags} | ${describe(first)} | ${defaults} |`;
}

/** The generated part of docs/configuration.md: every environment variable the program reads. */
export function configurationReference(program: Command = buildProgram()): string {
  const lines = [
    "## Variables that set a flag",
    "",
    "A flag given on the command line wins over its variable.",
    "",
    "| variable | flag | what it sets | default |",
    "|---|---|---|---|",
    ...flagVariables(program).map(flagVariableRow),
    "",
    "## Variables without a flag",
    "",
    "| variable | what it sets | default |",
    "|---|---|---|",
    ...PLAIN_VARIABLES.map((v) => `| \`${v.name}\` | ${cell(v.sets)} | ${cell(v.default)} |`),
  ];
  return lines.join("\n");
}

/** `text` with the part between the markers replaced by `generated`; throws when the markers are missing. */
export function replaceGenerated(text: string, generated: string, file: string): string {
  const start = text.indexOf(START);
  const end = text.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${file} lacks the lines ${START} and ${END}`);
  return `${text.slice(0, start + START.length)}\n\n${generated}\n\n${text.slice(end)}`;
}

/** Both files as this script would write them, from their current text (the hand-written parts are kept). */
export function renderDocs(root: string): Record<keyof typeof DOC_FILES, string> {
  const program = buildProgram();
  const read = (file: string) => readFileSync(path.join(root, file), "utf8");
  return {
    cli: replaceGenerated(read(DOC_FILES.cli), cliReference(program), DOC_FILES.cli),
    configuration: replaceGenerated(
      read(DOC_FILES.configuration),
      configurationReference(program),
      DOC_FILES.configuration,
    ),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  const root = path.resolve(import.meta.dirname, "..");
  const docs = renderDocs(root);
  for (const key of Object.keys(DOC_FILES) as (keyof typeof DOC_FILES)[]) {
    writeFileSync(path.join(root, DOC_FILES[key]), docs[key]);
    process.stdout.write(`wrote ${DOC_FILES[key]}\n`);
  }
}
