/**
 * The tools' input schemas as src/mcp/tool-schemas.ts derives them from the route table: the route's fields under
 * the tools' argument names, as JSON a tool call sends, and nothing else.
 */
import { describe, expect, it } from "vitest";
import { toolsFor } from "../../src/mcp/tool-schemas.js";
import { ROUTES } from "../../src/routes/index.js";

const tools = toolsFor(ROUTES, {});
const tool = (name: string) => tools.find((t) => t.def.name === name)!;
// biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON Schema keywords.
const property = (name: string, arg: string) => (tool(name).inputSchema.properties as any)[arg];

describe("the tools' input schemas, derived from their routes", () => {
  it("names a path placeholder by its tool argument, required", () => {
    expect(tool("get_content").inputSchema.required).toEqual(["content_id"]);
    expect(property("get_content", "content_id")).toMatchObject({ type: "integer", minimum: 1 });
    expect(tool("get_content").arguments.get("content_id")).toMatchObject({ in: "path", field: "contentId" });
  });

  it("shows a query field as the JSON a call sends: an integer, a boolean, their defaults as values", () => {
    expect(property("list_templates", "limit")).toMatchObject({ type: "integer", maximum: 100, default: 20 });
    expect(property("list_contents", "overdue")).toMatchObject({ type: "boolean" });
    expect(property("list_contents", "overdue").enum).toBeUndefined();
  });

  it("leaves out what a tool omits, and adds the workspace_id a workspace-aware route reads unlisted", () => {
    expect(Object.keys(tool("generate_content").inputSchema.properties as object)).not.toContain("stream");
    expect(Object.keys(tool("list_workspaces").inputSchema.properties as object)).not.toContain("workspace_id");
    expect(tool("get_content").arguments.get("workspace_id")).toMatchObject({ in: "query" });
    expect(tool("get_content").arguments.get("workspace_id")?.own).toBeDefined();
    expect(property("get_content", "workspace_id").description).toMatch(/workspace_id of the \/mcp URL/);
    expect(Object.keys(tool("list_images").inputSchema.properties as object)).not.toContain("workspace_id");
  });

  it("requires what a tool requires among its route's alternatives, and lifts a nullable field's description", () => {
    expect(tool("create_reference_material").inputSchema.required).toEqual(["content"]);
    expect(property("schedule_content", "scheduled_publish_at").description).toMatch(/ISO 8601/);
  });

  it("derives the tools once per route table and set of engines, listing the engines a model argument takes", () => {
    expect(toolsFor(ROUTES, {})).toBe(tools);
    const offering = toolsFor(ROUTES, { llm: { model: "local-model" } as never });
    expect(offering).not.toBe(tools);
    const generate = offering.find((t) => t.def.name === "generate_content")!;
    const { model } = generate.inputSchema.properties as Record<string, { enum?: string[] }>;
    expect(model.enum).toContain("local-model");
  });
});
