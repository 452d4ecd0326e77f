/**
 * Copies a text to the clipboard. The Clipboard API exists only in a secure context (https, or the loopback), so on a
 * plain-http address the text's own field is selected and copied the older way.
 */
import { useState } from "preact/hooks";

async function copyText(text: string, field?: HTMLInputElement | null): Promise<boolean> {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Refused (no permission): the older way below.
  }
  if (!field) return false;
  field.select();
  return document.execCommand("copy");
}

/** A button copying `text`, and a line saying whether it did (`field`: the text's own input, for the older way). */
export function CopyButton({
  text,
  label,
  field,
}: {
  text: string;
  label: string;
  field?: () => HTMLInputElement | null;
}) {
  const [copied, setCopied] = useState<boolean | null>(null);
  return (
    <span class="copy">
      <button type="button" onClick={async () => setCopied(await copyText(text, field?.()))}>
        {label}
      </button>
      <span role="status">{copied === true ? "Copied." : copied === false ? "Select the text and copy it." : ""}</span>
    </span>
  );
}
