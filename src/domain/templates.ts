/**
 * Template ownership (DESIGN §6): an account may use the built-in templates (no account) and its own, and no other
 * account's; a template it may not use is answered as one that does not exist.
 */
import type { Store } from "../db/store.js";
import type { TemplateRow } from "../db/templates.js";
import { ApiError } from "./errors.js";

/** The template of an id if the account may use it: a built-in one or its own. */
export function usableTemplate(
  store: Pick<Store, "templates">,
  accountId: number,
  id: number,
): TemplateRow | undefined {
  const t = store.templates.byId(id);
  return t && (t.account_id === null || t.account_id === accountId) ? t : undefined;
}

/** A template the account may use, read by its id (GET /templates/{id}): 404 template_not_found otherwise. */
export function findTemplate(store: Pick<Store, "templates">, accountId: number, id: number): TemplateRow {
  const t = usableTemplate(store, accountId, id);
  if (!t) throw new ApiError("template_not_found", `No template ${id}.`, { template_id: id });
  return t;
}

/**
 * A template a request names to work from (a draft's or a generation's template_id): 404 template_not_found with
 * the id in missing_ids, as for the other records a generation names, when the account may not use it.
 */
export function requireTemplate(store: Pick<Store, "templates">, accountId: number, id: number): TemplateRow {
  const t = usableTemplate(store, accountId, id);
  if (!t) throw new ApiError("template_not_found", `Template not found: ${id}.`, { missing_ids: [id] });
  return t;
}
