/** A labelled form field: the label names the control (for, id), and a hint is read with it (aria-describedby). */
import type { ComponentChildren } from "preact";
import { cloneElement, isValidElement } from "preact";
import { useId } from "preact/hooks";

/** A label, its control (given as the child, which gets the id) and an optional hint. */
export function Field({ label, hint, children }: { label: string; hint?: string; children: ComponentChildren }) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const control = isValidElement(children)
    ? cloneElement(children, { id, "aria-describedby": hintId } as Record<string, unknown>)
    : children;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {control}
      {hint ? (
        <p class="hint" id={hintId}>
          {hint}
        </p>
      ) : null}
    </div>
  );
}
