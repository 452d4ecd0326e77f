/**
 * A table's scrolling frame: the `.table-wrap` a wide table scrolls sideways in on a phone, made a named region that
 * takes the keyboard's focus, so that a keyboard alone can scroll it (axe: scrollable-region-focusable).
 */
import type { ComponentChildren } from "preact";

export function TableWrap({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus for the keyboard to scroll it.
    <section class="table-wrap" aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
