/** A page's frame: its heading (which the browser's title follows), its actions, and its content. */
import type { ComponentChildren } from "preact";
import { useEffect } from "preact/hooks";

/** A page with its heading and actions; the browser's title follows the heading. */
export function Page({
  title,
  actions,
  children,
}: {
  title: string;
  actions?: ComponentChildren;
  children: ComponentChildren;
}) {
  useEffect(() => {
    document.title = `${title} · content-service`;
  }, [title]);
  return (
    <section class="page">
      <header class="page-head">
        <h1>{title}</h1>
        {actions ? <div class="actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** A line saying that something is being read or done, for screen readers too (role=status). */
export function Busy({ label, value, max }: { label: string; value?: number; max?: number }) {
  return (
    <div class="busy" role="status">
      <progress aria-label={label} value={value} max={max} />
      <span>{label}</span>
    </div>
  );
}
