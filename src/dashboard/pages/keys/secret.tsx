/**
 * A new key's secret, shown once: the server keeps only its hash, so the page holds it in the component's state
 * alone (never stored, never in the address) and forgets it when the person leaves the page.
 */
import { useId, useRef } from "preact/hooks";
import { CopyButton } from "../../ui/copy-button.js";

/** A new key's secret, with a copy button and the warning that it is not shown again. */
export function SecretOnce({ secret, name }: { secret: string; name: string }) {
  const field = useRef<HTMLInputElement>(null);
  const id = useId();
  return (
    <div class="panel key-secret">
      <h2>The new key “{name}”</h2>
      <p class="notice">
        Copy this key now and keep it somewhere safe: it will not be shown again. If it is lost, issue a new key and
        revoke this one.
      </p>
      <label for={id}>Secret key</label>
      <div class="secret">
        <input id={id} ref={field} type="text" readOnly value={secret} spellcheck={false} />
        <CopyButton text={secret} label="Copy the key" field={() => field.current} />
      </div>
    </div>
  );
}
