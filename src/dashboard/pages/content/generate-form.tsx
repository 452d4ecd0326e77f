/**
 * A new content (#/contents/new): a template, a direction, the workspace's memories and references to use, generated
 * over the streamed answer of POST /generate so the text shows as it is written; then the editor of the new record.
 */
import { useState } from "preact/hooks";
import { useAccount } from "../../account.js";
import { api, ok } from "../../api/client.js";
import { navigate } from "../../router.js";
import { ErrorNote } from "../../ui/error-note.js";
import { Field } from "../../ui/field.js";
import { Busy, Page } from "../../ui/page.js";
import { useAction, useAsync } from "../../ui/use-async.js";
import { type GenerateRequest, generateStreamed } from "./stream.js";
import { Warnings } from "./warnings.js";
import "./content.css";

/** The templates, memories and references the form offers (the first 100 of each: the lists' largest page). */
function useSources(workspaceId: string | null) {
  return useAsync(async () => {
    if (!workspaceId) return undefined;
    const query = { workspace_id: workspaceId, limit: 100 };
    const [templates, memories, references] = await Promise.all([
      ok(api.GET("/api/v1/templates", { params: { query: { limit: 100 } } })),
      ok(api.GET("/api/v1/memories", { params: { query } })),
      ok(api.GET("/api/v1/reference-materials", { params: { query } })),
    ]);
    return { templates: templates.data, memories: memories.data, references: references.data };
  }, [workspaceId]);
}

/** A set of checkboxes choosing ids. */
function Choices(props: {
  legend: string;
  items: { id: number; label: string }[];
  chosen: number[];
  onChange: (ids: number[]) => void;
}) {
  const toggle = (id: number, on: boolean) =>
    props.onChange(on ? [...props.chosen, id] : props.chosen.filter((x) => x !== id));
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      {props.items.length === 0 ? <p class="muted">None in this workspace.</p> : null}
      <div class="choices">
        {props.items.map((item) => (
          <label class="choice" key={item.id}>
            <input
              type="checkbox"
              checked={props.chosen.includes(item.id)}
              onChange={(e) => toggle(item.id, (e.target as HTMLInputElement).checked)}
            />
            {item.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/** What is being written: the text so far and a progress indicator while it grows. */
function Writing({ text, busy }: { text: string; busy: boolean }) {
  if (!busy && !text) return null;
  return (
    <section class="panel" aria-label="The text being written">
      {busy ? <Busy label="Writing" /> : null}
      <p class="stream-text" aria-live="off">
        {text}
      </p>
    </section>
  );
}

type Form = { templateId: string; direction: string; memories: number[]; references: number[]; seed: string };

function requestOf(form: Form, workspaceId: string): GenerateRequest {
  const seed = form.seed.trim();
  return {
    template_id: Number(form.templateId),
    user_direction: form.direction,
    memory_ids: form.memories,
    reference_material_ids: form.references,
    workspace_id: workspaceId,
    ...(seed ? { seed: Number(seed) } : {}),
  };
}

/** The generation form: template, direction, memories and references, with the text shown as it is written. */
export function GenerateForm() {
  const { workspaceId } = useAccount();
  const sources = useSources(workspaceId);
  const [form, setForm] = useState<Form>({ templateId: "", direction: "", memories: [], references: [], seed: "" });
  const [text, setText] = useState("");
  const [warnings, setWarnings] = useState<string[]>([]);
  const generate = useAction(async () => {
    if (!workspaceId) return;
    setText("");
    const record = await generateStreamed(requestOf(form, workspaceId), setText);
    setWarnings(record.warnings);
    // The warnings go with the person to the editor (its query), where the new record opens.
    navigate(
      `/contents/${record.content_id}`,
      record.warnings.length ? { warnings: record.warnings.join("\n") } : undefined,
    );
  });
  const set = (patch: Partial<Form>) => setForm((f) => ({ ...f, ...patch }));
  const data = sources.data;
  return (
    <Page title="New content">
      <ErrorNote error={sources.error} />
      {sources.loading && !data ? <Busy label="Reading the templates and sources" /> : null}
      {data ? (
        <form
          class="panel"
          onSubmit={(e) => {
            e.preventDefault();
            generate.run();
          }}
        >
          <Field label="Template">
            <select
              required
              value={form.templateId}
              onChange={(e) => set({ templateId: (e.target as HTMLSelectElement).value })}
            >
              <option value="">Choose a template</option>
              {data.templates.map((t) => (
                <option key={t.id} value={String(t.id)}>
                  {t.name}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Direction" hint="What to write: the subject, the angle, the reader (up to 5,000 characters).">
            <textarea
              required
              maxLength={5000}
              value={form.direction}
              onInput={(e) => set({ direction: (e.target as HTMLTextAreaElement).value })}
            />
          </Field>
          <Choices
            legend="Memories to apply"
            items={data.memories.map((m) => ({ id: m.id, label: `${m.title} (${m.kind})` }))}
            chosen={form.memories}
            onChange={(memories) => set({ memories })}
          />
          <Choices
            legend="Reference materials to draw on"
            items={data.references.map((r) => ({ id: r.id, label: r.title }))}
            chosen={form.references}
            onChange={(references) => set({ references })}
          />
          <Field label="Seed (optional)" hint="The same request and seed give the same wording.">
            <input
              inputMode="numeric"
              pattern="[0-9]*"
              value={form.seed}
              onInput={(e) => set({ seed: (e.target as HTMLInputElement).value })}
            />
          </Field>
          <div class="actions">
            <button type="submit" class="primary" disabled={generate.busy}>
              Generate
            </button>
          </div>
        </form>
      ) : null}
      <ErrorNote error={generate.error} />
      <Warnings warnings={warnings} />
      <Writing text={text} busy={generate.busy} />
    </Page>
  );
}
