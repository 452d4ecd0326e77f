/**
 * A tool call's arguments checked by its route's schemas (src/mcp/tool-arguments.ts), in the words of the HTTP
 * input stage, under the tool's argument names.
 */
import { describe, expect, it } from "vitest";
import { argumentIssues } from "../../src/mcp/tool-arguments.js";
import { toolsFor } from "../../src/mcp/tool-schemas.js";
import { ROUTES } from "../../src/routes/index.js";

const tools = toolsFor(ROUTES, {});
const issues = (name: string, args: unknown) =>
  argumentIssues(tools.find((t) => t.def.name === name)!, args).map((i) => `${i.keys.join(".")}: ${i.message}`);

describe("a tool call's arguments, checked by its route's schemas", () => {
  it("takes arguments its route takes", () => {
    expect(issues("list_templates", { limit: 5, category: "blog" })).toEqual([]);
    expect(issues("list_contents", { overdue: true })).toEqual([]);
    expect(issues("get_content", { content_id: 7, workspace_id: "ws_x" })).toEqual([]);
  });

  it("refuses a path or query argument that is not the JSON its schema shows, before its route's rule", () => {
    expect(issues("get_content", { content_id: "seven" })).toEqual([
      "content_id: content_id must be a number (got a string)",
    ]);
    expect(issues("list_templates", { limit: 5.5 })).toEqual(["limit: limit must be an integer (got 5.5)"]);
    expect(issues("list_contents", { overdue: "yes" })).toEqual([
      "overdue: overdue must be true or false (got a string)",
    ]);
    expect(issues("get_content", {})).toEqual(["content_id: content_id is required"]);
    expect(issues("get_workspace", { workspace_id: "" })).toEqual(["workspace_id: workspace_id must not be empty"]);
  });

  it("words the route's own refusals as its HTTP errors do, under the argument's name", () => {
    expect(issues("list_templates", { limit: 500 })).toEqual([
      'limit: limit must be an integer from 1 to 100 (got "500")',
    ]);
    expect(issues("create_memory", { kind: "mood", title: "t", content: "c" })).toEqual([
      'kind: kind must be one of voice, context (got "mood")',
    ]);
    expect(issues("generate_content", { user_direction: "x" })).toEqual(["template_id: template_id is required"]);
    expect(issues("update_memory", { memory_id: 1, workspace_id: "" })[0]).toMatch(/^workspace_id: workspace_id must/);
  });

  it("requires what the tool requires, and refuses arguments it does not take", () => {
    expect(issues("create_reference_material", { format: "text" })).toContain("content: content is required");
    expect(issues("create_reference_material", { content: "x" })).toEqual([]);
    expect(issues("delete_content", { content_id: 1, worksapce_id: "ws" })).toEqual([
      ': arguments must not have "worksapce_id": it is not a field this takes',
    ]);
    expect(issues("list_templates", "all")).toEqual([": arguments must be an object (got a string)"]);
  });
});
