/** A content's conversions (POST /conversions, GET /conversions?content_id=): other formats of its text, as text. */
import { useState } from "preact/hooks";
import { api, ok } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { ErrorNote } from "../../ui/error-note.js";
import { Field } from "../../ui/field.js";
import { dateTime } from "../../ui/format.js";
import { Busy } from "../../ui/page.js";
import { useAction, useAsync } from "../../ui/use-async.js";

type Format = components["schemas"]["Conversion"]["target_format"];
const FORMATS: { value: Format; label: string }[] = [
  { value: "html", label: "HTML" },
  { value: "markdown", label: "Markdown" },
  { value: "plain_text", label: "Plain text" },
  { value: "social_thread", label: "Social thread" },
  { value: "email", label: "Email" },
];

/** A content's conversions: convert to a target format, and each stored output shown as text. */
export function Conversions({ contentId, workspaceId }: { contentId: number; workspaceId: string }) {
  const [format, setFormat] = useState<Format>("html");
  const list = useAsync(
    () =>
      ok(
        api.GET("/api/v1/conversions", {
          params: { query: { content_id: contentId, workspace_id: workspaceId, limit: 100 } },
        }),
      ),
    [contentId, workspaceId],
  );
  const convert = useAction(async () => {
    await ok(
      api.POST("/api/v1/conversions", {
        body: { content_id: contentId, target_format: format, workspace_id: workspaceId },
      }),
    );
    list.reload();
  });
  // Newest first: the one just made is at the top.
  const conversions = [...(list.data?.data ?? [])].reverse();
  return (
    <section class="panel" aria-labelledby="conversions-heading">
      <h2 id="conversions-heading">Conversions</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          convert.run();
        }}
      >
        <Field label="Format">
          <select value={format} onChange={(e) => setFormat((e.target as HTMLSelectElement).value as Format)}>
            {FORMATS.map((f) => (
              <option key={f.value} value={f.value}>
                {f.label}
              </option>
            ))}
          </select>
        </Field>
        <div class="actions">
          <button type="submit" disabled={convert.busy}>
            Convert
          </button>
        </div>
      </form>
      {convert.busy ? <Busy label="Converting" /> : null}
      <ErrorNote error={convert.error ?? list.error} />
      {conversions.map((c) => (
        <article key={c.id} aria-label={`Conversion ${c.id}`}>
          <h3>
            {FORMATS.find((f) => f.value === c.target_format)?.label ?? c.target_format} · {dateTime(c.created_at)}
          </h3>
          {c.subject ? <p>Subject: {c.subject}</p> : null}
          <pre class="output-text">{c.output}</pre>
        </article>
      ))}
    </section>
  );
}
