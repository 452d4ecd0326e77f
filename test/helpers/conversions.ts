/** Requests the conversion tests make: a draft to convert, and a conversion of it. */
import { expect } from "vitest";
import type { Harness } from "./harness.js";

/** Stores a draft through POST /contents and returns its id, failing the test unless it is created. */
export async function draft(
  h: Harness,
  key: string,
  body: { title?: string; content: string; workspace_id?: string },
): Promise<number> {
  const res = await h.send("POST", "/api/v1/contents", { auth: key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.content_id as number;
}

/** Sends POST /conversions with `body` under `key`; the answer as it came. */
export const convert = (h: Harness, key: string, body: Record<string, unknown>) =>
  h.send("POST", "/api/v1/conversions", { auth: key, body });
