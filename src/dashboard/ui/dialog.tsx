/**
 * A modal dialog on the browser's own <dialog>: it keeps the keyboard's focus inside while open, closes on Escape,
 * and gives the focus back to what had it.
 */
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";

/** A modal dialog, open while `open`; without `onClose`, Escape does not close it (the sign-in the page waits for). */
export function Dialog({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  onClose?: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog
      ref={ref}
      aria-label={title}
      onCancel={(event) => {
        if (!onClose) event.preventDefault();
        else onClose();
      }}
    >
      <h2>{title}</h2>
      {open ? children : null}
    </dialog>
  );
}

/** Asks before an action that cannot be undone: the question, what it removes, and the two answers. */
export function Confirm({
  open,
  title,
  children,
  confirmLabel,
  busy,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Dialog open={open} title={title} onClose={onCancel}>
      {children}
      <div class="actions">
        <button type="button" class="danger" disabled={busy} onClick={onConfirm}>
          {confirmLabel}
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
