/** Schemas shared by many routes: errors, pagination, identifiers. */
import * as v from "valibot";
import { charLength } from "../runtime/chars.js";

/** The record schemas the description names under components.schemas, by name (see named()). */
export const NAMED_SCHEMAS: Record<string, v.GenericSchema> = {};

/**
 * Names a record schema: the description lists it once under components.schemas and refers to it by `$ref`
 * wherever it appears, so that a generated client has a named type for it.
 */
export function named<S extends v.GenericSchema>(name: string, schema: S): S {
  if (NAMED_SCHEMAS[name] !== undefined && NAMED_SCHEMAS[name] !== schema) throw new Error(`two schemas named ${name}`);
  NAMED_SCHEMAS[name] = schema;
  return schema;
}

/** A schema with a description: what the field is, for the description's reader (a request's or a response's field). */
export const described = <S extends v.GenericSchema>(schema: S, text: string) => v.pipe(schema, v.description(text));
const Strings = v.array(v.string());
const WholeNumber = v.pipe(v.number(), v.integer());

/**
 * An error's details: error_code, and the fields DESIGN §4 names for it (spec §7), each present only with the codes
 * that carry it; further fields may follow (the code's own, e.g. `memory_id`).
 */
/** The id a `<resource>_not_found` answer looked for, as the resource's records and its other answers name it. */
const lookedFor = <S extends v.GenericSchema>(schema: S, code: string) =>
  v.optional(described(schema, `${code}: the id that was looked for.`));
/** One field per resource (`missing_ids` where a request named several). */
const NOT_FOUND_IDS = {
  account_id: lookedFor(WholeNumber, "account_not_found"),
  api_key_id: lookedFor(v.string(), "api_key_not_found"),
  content_id: lookedFor(WholeNumber, "content_not_found"),
  conversion_id: lookedFor(WholeNumber, "conversion_not_found"),
  entity_id: lookedFor(v.string(), "entity_not_found"),
  image_id: lookedFor(WholeNumber, "image_not_found"),
  learning_job_id: lookedFor(v.string(), "learning_job_not_found"),
  memory_id: lookedFor(WholeNumber, "memory_not_found"),
  reference_material_id: lookedFor(WholeNumber, "reference_material_not_found"),
  template_id: lookedFor(WholeNumber, "template_not_found"),
  voice_profile_id: lookedFor(v.string(), "voice_profile_not_found"),
  workspace_id: v.optional(
    described(
      v.string(),
      "workspace_not_found: the id that was looked for; workspace_not_empty, last_workspace, and invalid_status for is_default " +
        "false on the default workspace: the workspace.",
    ),
  ),
};

const ErrorDetails = v.looseObject({
  error_code: described(v.string(), "Which error this is (README, `x-error-codes`)."),
  issues: v.optional(
    described(
      v.array(
        v.object({
          path: described(v.string(), "Where: `body.<field>`, `query.<parameter>` or `path.<parameter>`."),
          message: described(v.string(), "What is wrong there and what is expected."),
        }),
      ),
      "validation_failed: what is wrong, and where (`body.title`, `query.limit`, `path.contentId`).",
    ),
  ),
  required_scope: v.optional(described(v.string(), "insufficient_scope: the scope the operation needs.")),
  current_scopes: v.optional(described(Strings, "insufficient_scope: the key's scopes.")),
  upgrade_action: v.optional(
    described(
      v.string(),
      "insufficient_scope, plan_upgrade_required: the absolute URL of the operation that re-issues the key or upgrades the plan.",
    ),
  ),
  bound_workspace_id: v.optional(described(v.string(), "workspace_mismatch: the key's workspace.")),
  requested_workspace_id: v.optional(described(v.string(), "workspace_mismatch: the workspace asked for or reached.")),
  current_plan: v.optional(described(v.string(), "plan_upgrade_required: the account's plan.")),
  required_plans: v.optional(described(Strings, "plan_upgrade_required: the plans with API access.")),
  missing_ids: v.optional(
    described(
      v.array(WholeNumber),
      "<resource>_not_found: every id named that is missing or unusable, in the order sent.",
    ),
  ),
  ...NOT_FOUND_IDS,
  allowed: v.optional(described(Strings, "method_not_allowed: the methods the path has (also the `Allow` header).")),
  current_status: v.optional(described(v.string(), "invalid_status: the record's status.")),
  required_status: v.optional(
    described(
      v.union([v.string(), Strings]),
      "invalid_status: the status the operation accepts, or an array of them when it accepts several.",
    ),
  ),
  required_statuses: v.optional(
    described(
      Strings,
      "invalid_status: the statuses the operation accepts, always an array (added to required_status).",
    ),
  ),
  limit_bytes: v.optional(described(WholeNumber, "payload_too_large: the limit that was passed.")),
  limit_chars: v.optional(
    described(WholeNumber, "output_too_large: the most characters the output may have, which it would pass."),
  ),
  window: v.optional(described(v.picklist(["minute", "hour"]), "rate_limit_exceeded: the window that is spent.")),
  limit: v.optional(described(WholeNumber, "rate_limit_exceeded: that window's request limit.")),
  retry_after_seconds: v.optional(
    described(WholeNumber, "rate_limit_exceeded, service_busy: seconds to wait (also the `Retry-After` header)."),
  ),
});

/** The coded error body every error answer carries (named ErrorBody in the description). */
export const ErrorBodySchema = named(
  "ErrorBody",
  v.object({
    error: described(v.string(), "The error code (the same as details.error_code): one of `x-error-codes`."),
    message: described(v.string(), "What went wrong, in words for a person, naming the record or field."),
    details: described(ErrorDetails, "The error's code and the fields that code carries."),
    detail: described(ErrorDetails, "The same object as details, for clients that read the general detail field."),
    trace_id: described(v.string(), "This answer's trace id (also its X-Trace-Id header), to find it in the log."),
  }),
);

/**
 * An integer carried as a path or query string. The description shows it as the integer it is (`type: integer` with
 * its bounds: openapi-schemas.ts reads the metadata), so that a generated client types it as a number. `description`
 * says what the parameter is (carried in the metadata: the string's part of the pipe is all a request's form shows).
 */
export const intString = (min = 1, max = Number.MAX_SAFE_INTEGER, description?: string) => {
  const expected =
    max === Number.MAX_SAFE_INTEGER ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`;
  return v.pipe(
    v.string(),
    // One rule, one message, judged on the string sent: the message quotes it (`(got "500")`).
    v.check((s) => /^-?\d{1,16}$/.test(s) && Number(s) >= min && Number(s) <= max, `must be ${expected}`),
    v.metadata({ integerString: { minimum: min, maximum: max }, ...(description ? { description } : {}) }),
    v.transform(Number),
  );
};

/**
 * valibot's length action `described` (what the description states: minLength or maxLength; the issue's type and
 * message) made to count in another unit: `count` measures a string and `fits` judges the count, and `settled` says
 * from its UTF-16 length alone that a string fits, so that a long text is counted only when it could fail. An issue's
 * `received` is the count in that unit. One mechanism for characters and bytes, minimums and maximums.
 */
function countedLength<TAction extends v.BaseValidation<string, string, v.BaseIssue<unknown>>>(
  described: TAction,
  count: (value: string) => number,
  fits: (received: number) => boolean,
  settled: (units: number) => boolean,
): TAction {
  const action: TAction = {
    ...described,
    "~run"(dataset, config) {
      if (!dataset.typed || settled(dataset.value.length)) return dataset;
      const received = count(dataset.value);
      if (!fits(received)) v._addIssue(action, "length", dataset, config, { received: `${received}` });
      return dataset;
    },
  };
  return action;
}

/**
 * At most `max` characters (charLength), described as `maxLength: max`. valibot's maxLength counts UTF-16 units, so a
 * title of 300 emoji (600 units) was refused while the description, read by a client's validator, allowed it. A
 * string within the limit in units is within it in characters, and only a longer one is counted (a 500,000-character
 * text costs nothing more). Its issue is worded by http/messages.ts (`must be at most 300 characters (got 301)`) unless
 * `message` is given.
 */
export function maxChars(max: number, message?: string) {
  return countedLength(
    v.maxLength<string, number, v.ErrorMessage<v.MaxLengthIssue<string, number>> | undefined>(max, message),
    charLength,
    (received) => received <= max,
    (units) => units <= max,
  );
}

/**
 * At most `max` bytes in UTF-8, for a limit a protocol sets in octets (an email address: RFC 5321 §4.5.3.1, which
 * RFC 6531 carries over to UTF-8 addresses unchanged). Described as `maxLength: max`, the nearest JSON Schema can
 * say: a character is at least one byte, so no address within the limit is outside it. A string of at most max/3
 * UTF-16 units is within it whatever it holds (a unit is at most three bytes): only a longer one is counted.
 * Its message says bytes (`must be at most 254 bytes of UTF-8 (got 255)`: the count follows, http/messages.ts).
 */
export function maxBytes(max: number) {
  return countedLength(
    v.maxLength<string, number, v.ErrorMessage<v.MaxLengthIssue<string, number>>>(
      max,
      `must be at most ${max} bytes of UTF-8`,
    ),
    (value) => Buffer.byteLength(value, "utf8"),
    (received) => received <= max,
    (units) => units * 3 <= max,
  );
}

/**
 * At least `min` characters (charLength), described as `minLength: min`: the unit maxChars counts, where valibot's
 * minLength counts UTF-16 units, so one emoji passed a minimum of 2 while the description, read by a client's
 * validator, refused it. A string of 2×min units or more is long enough whatever it holds (a character is at most two
 * units): only a shorter one is counted. Worded by http/messages.ts unless `message` is given.
 */
export function minChars(min: number, message?: string) {
  return countedLength(
    v.minLength<string, number, v.ErrorMessage<v.MinLengthIssue<string, number>> | undefined>(min, message),
    charLength,
    (received) => received >= min,
    (units) => units >= 2 * min,
  );
}

/**
 * The longest cursor a list takes: it is opaque, but carries the last row's sort key (an entity id of up to 200 bytes,
 * graph-extract.ts MAX_ENTITY_ID_BYTES, in base64url) and the tag binding it to its list (cursors.ts).
 */
export const MAX_CURSOR_CHARS = 400;

/** ?limit= and ?cursor= of every list (DESIGN §3). */
export const PageQuery = {
  limit: v.optional(intString(1, 100, "How many items a page holds, 1 to 100."), "20"),
  cursor: v.optional(
    v.pipe(
      v.string(),
      maxChars(MAX_CURSOR_CHARS),
      v.description("The next_cursor of the previous page, to read the next one; leave it out for the first."),
    ),
  ),
};

/**
 * A list's text filter (`?q=`, `?category=`), trimmed. An empty or blank value is 400, as it is on every other filter
 * (`?status=`, `?kind=`, `?workspace_id=`, `?planned_from=`): it names nothing to filter by, and read as no filter it
 * hid a client's unset variable behind a full list. Leave the parameter out for no filter.
 */
export const TextFilter = (max: number, description: string) =>
  v.pipe(
    v.string(),
    v.description(`${description} Leave it out for no filter; an empty or blank value is refused.`),
    maxChars(max),
    v.trim(),
    minChars(1, "must not be empty or blank: leave the parameter out for no filter"),
  );

/** A list's body: data, has_more and next_cursor. */
export const pageOf = <S extends v.GenericSchema>(item: S) =>
  v.object({
    data: described(v.array(item), "This page's items, in the list's order."),
    has_more: described(v.boolean(), "Whether items follow this page."),
    next_cursor: described(
      v.nullable(v.string()),
      "Send it as `cursor` for the next page; null on the last page. Opaque: it works only on the same list.",
    ),
  });

/**
 * A check whose description is `json`: the JSON Schema words for the rule it checks, merged into its schema's
 * description (openapi.ts), so that the rule and what the description says of it are one action. Used where
 * valibot's own actions cannot say the rule (exactly one of two fields, a calendar day); test/fuzz/valid-requests.test.ts
 * holds the description to what the check accepts.
 */
export function describedCheck<TInput>(
  requirement: (input: TInput) => boolean,
  message: v.ErrorMessage<v.CheckIssue<TInput>>,
  json: Record<string, unknown>,
): v.CheckAction<TInput, v.ErrorMessage<v.CheckIssue<TInput>>> & { jsonSchema: Record<string, unknown> } {
  return describedAs(v.check(requirement, message), json);
}

/** Any validation action with the JSON Schema words for its rule (see describedCheck). */
export function describedAs<A extends { readonly kind: "validation" }>(
  action: A,
  json: Record<string, unknown>,
): A & { jsonSchema: Record<string, unknown> } {
  return { ...action, jsonSchema: json };
}

/**
 * A body that takes exactly one of some fields: refused with `message` when it has none or several, described as
 * `oneOf` of alternatives, each requiring its field and whatever `with` adds to it (another field it needs).
 */
export function exactlyOneOf<TInput extends Record<string, unknown>>(
  fields: readonly NoInfer<keyof TInput & string>[],
  message: string,
  with_: Partial<Record<NoInfer<keyof TInput & string>, Record<string, unknown>>> = {},
) {
  return describedCheck<TInput>((b) => fields.filter((f) => b[f] !== undefined).length === 1, message, {
    oneOf: fields.map((f) => ({ required: [f], ...(with_[f] ?? {}) })),
  });
}

/** A record's workspace_id in an answer: the workspace it belongs to. */
export const RecordWorkspaceId = described(v.string(), "The workspace the record belongs to (ws_…).");

/** The message of an empty workspace_id, wherever it is sent (the pipeline's own check uses it too). */
export const EMPTY_WORKSPACE_ID = "must be a workspace id (ws_…); leave it out for the default workspace";

/**
 * The workspace_id a workspace-aware request may carry, in its query or its body: a workspace's id, never empty (an
 * empty one is refused: it names no workspace, and read as "none" it hid a client's unset variable).
 */
export const WorkspaceIdField = v.pipe(
  v.string(),
  minChars(1, EMPTY_WORKSPACE_ID),
  maxChars(64),
  v.description(
    "The workspace to act in; leave it out for the account's default workspace (a key bound to a workspace acts in " +
      "that one, and naming another is 403 workspace_mismatch). An empty value is refused.",
  ),
);

/** The workspace_id a workspace-aware request may carry in its query. */
export const WorkspaceQuery = { workspace_id: v.optional(WorkspaceIdField) };

/**
 * Marks a `model` field: the description lists as its `enum` the engines the server offers (openapi.ts
 * offeredModels, from its configuration), which is what the handler accepts.
 */
export const offeredModel = (kind: "text" | "image") =>
  v.metadata<string, { offeredModel: "text" | "image" }>({ offeredModel: kind });

/** Timestamps: ISO 8601 UTC. */
export const Timestamp = v.pipe(v.string(), v.isoTimestamp());

/**
 * A record's timestamp (`updated_at`, `created_at`) in a body that otherwise refuses unknown fields (a record read and
 * written back): taken and ignored, whatever it says, as the server sets it; `readOnly` in the description.
 */
export const ignoredTimestamp = (field: string) =>
  v.optional(
    v.pipe(
      v.nullable(v.pipe(v.string(), maxChars(64))),
      v.metadata({ readOnly: true, description: `The record's ${field}, as read: accepted and ignored.` }),
    ),
  );
/** A record's updated_at sent back with it: accepted and ignored. */
export const IgnoredUpdatedAt = ignoredTimestamp("updated_at");

/** A whole number in a response (ids, counts): `integer` in the description, not `number`. */
export const Integer = v.pipe(v.number(), v.integer());
