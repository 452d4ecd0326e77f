/** A memory's fields: its kind (voice or context), title and content; for a new memory and for an edit. */
import type { ComponentChildren } from "preact";
import { useId, useState } from "preact/hooks";
import { ErrorNote } from "../../ui/error-note.js";
import { Field } from "../../ui/field.js";
import { Busy } from "../../ui/page.js";
import type { MemoryFields, MemoryKind } from "./data.js";

const KINDS: { value: MemoryKind; label: string; hint: string }[] = [
  { value: "voice", label: "Voice", hint: "how to sound: style, words to use or avoid" },
  { value: "context", label: "Context", hint: "what to know: facts, audience" },
];

/** The form of a memory's fields, starting from `initial`, which hands what was typed to `onSubmit`. */
export function MemoryForm({
  initial,
  submitLabel,
  busy,
  error,
  onSubmit,
  children,
}: {
  initial: MemoryFields;
  submitLabel: string;
  busy: boolean;
  error: unknown;
  /** Resolves true when saved: the form is then emptied (a new memory) or closed by its owner (an edit). */
  onSubmit: (fields: MemoryFields) => Promise<boolean>;
  children?: ComponentChildren;
}) {
  const [fields, setFields] = useState(initial);
  const name = useId();
  const set = (change: Partial<MemoryFields>) => setFields((f) => ({ ...f, ...change }));
  return (
    <form
      onSubmit={async (event) => {
        event.preventDefault();
        if (await onSubmit(fields)) setFields(initial);
      }}
    >
      <fieldset>
        <legend>Kind</legend>
        {KINDS.map((k) => (
          <label key={k.value} class="choice">
            <input
              type="radio"
              name={name}
              value={k.value}
              checked={fields.kind === k.value}
              onChange={() => set({ kind: k.value })}
            />
            {k.label} <span class="muted">({k.hint})</span>
          </label>
        ))}
      </fieldset>
      <Field label="Memory title">
        <input required maxLength={200} value={fields.title} onInput={(e) => set({ title: e.currentTarget.value })} />
      </Field>
      <Field label="Memory content" hint="What generation is to follow or know; up to 20,000 characters.">
        <textarea
          required
          maxLength={20_000}
          value={fields.content}
          onInput={(e) => set({ content: e.currentTarget.value })}
        />
      </Field>
      <ErrorNote error={error} />
      {busy ? <Busy label="Saving the memory…" /> : null}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {submitLabel}
        </button>
        {children}
      </div>
    </form>
  );
}
