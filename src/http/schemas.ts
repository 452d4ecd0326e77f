/** Schemas shared by many routes: errors, pagination, identifiers. */
import * as v from "valibot";

/** DESIGN §3's error body. */
export const ErrorBodySchema = v.object({
  error: v.string(),
  message: v.string(),
  details: v.looseObject({ error_code: v.string() }),
  detail: v.looseObject({ error_code: v.string() }),
  trace_id: v.string(),
});

/** An integer carried as a path or query string. */
export const intString = (min = 1, max = Number.MAX_SAFE_INTEGER) =>
  v.pipe(
    v.string(),
    v.regex(/^-?\d{1,16}$/, "Expected an integer."),
    v.transform(Number),
    v.number(),
    v.minValue(min),
    v.maxValue(max),
  );

/** ?limit= and ?cursor= of every list (DESIGN §3). */
export const PageQuery = {
  limit: v.optional(intString(1, 100), "20"),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(200))),
};

/** A list's body: data, has_more and next_cursor. */
export const pageOf = <S extends v.GenericSchema>(item: S) =>
  v.object({ data: v.array(item), has_more: v.boolean(), next_cursor: v.nullable(v.string()) });

/** The workspace_id a workspace-aware request may carry in its query. */
export const WorkspaceQuery = { workspace_id: v.optional(v.pipe(v.string(), v.maxLength(64))) };

/** Timestamps: ISO 8601 UTC. */
export const Timestamp = v.pipe(v.string(), v.isoTimestamp());

/** A whole number in a response (ids, counts): `integer` in the description, not `number`. */
export const Integer = v.pipe(v.number(), v.integer());
