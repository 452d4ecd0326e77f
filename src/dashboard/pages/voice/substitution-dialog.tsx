/** Giving a learned substitution another replacement: it keeps its evidence, the old one is recorded as removed. */
import { useState } from "preact/hooks";
import { Dialog } from "../../ui/dialog.js";
import { Field } from "../../ui/field.js";
import type { Substitution } from "./data.js";

/** The dialog that gives `substitution` another replacement; open while `substitution` is set. */
export function SubstitutionDialog({
  substitution,
  onSave,
  onClose,
}: {
  substitution: Substitution | null;
  onSave: (from: string, to: string) => void;
  onClose: () => void;
}) {
  return (
    <Dialog open={substitution !== null} title={`Replace “${substitution?.from ?? ""}” with`} onClose={onClose}>
      {substitution ? (
        <SubstitutionForm key={substitution.from} substitution={substitution} onSave={onSave} onClose={onClose} />
      ) : null}
    </Dialog>
  );
}

function SubstitutionForm({
  substitution,
  onSave,
  onClose,
}: {
  substitution: Substitution;
  onSave: (from: string, to: string) => void;
  onClose: () => void;
}) {
  const [to, setTo] = useState(substitution.to);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (to.trim()) onSave(substitution.from, to.trim());
      }}
    >
      <Field label="Replacement" hint="At most 60 characters; stored in lower case.">
        <input required maxLength={60} value={to} onInput={(e) => setTo(e.currentTarget.value)} />
      </Field>
      <div class="actions">
        <button type="submit" class="primary">
          Save the replacement
        </button>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
