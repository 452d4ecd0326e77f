/**
 * A table's scrolling frame: the `.table-wrap` a wide table scrolls sideways in on a phone, made a named region that
 * takes the keyboard's focus, so that a keyboard alone can scroll it (axe: scrollable-region-focusable).
 */
import type { ComponentChildren } from "preact";

/** The named, focusable `.table-wrap` a table scrolls in; `class` adds a page's own classes to it. */
export function TableWrap({
  label,
  class: extra,
  children,
}: {
  label: string;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus for the keyboard to scroll it.
    <section class={extra ? `table-wrap ${extra}` : "table-wrap"} aria-label={label} tabIndex={0}>
      {children}
    </section>
  );
}
