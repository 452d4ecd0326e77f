/**
 * The learned traits, each with its evidence and its correction: a substitution can be given another replacement or
 * removed, a phrase removed. Contested substitutions are shown as what they are: seen, but not applied yet.
 */
import type { ComponentChildren } from "preact";
import { TableWrap } from "../../ui/table-wrap.js";
import type { Phrase, Substitution } from "./data.js";
import { Evidence } from "./evidence.js";

function TraitTable({
  caption,
  columns,
  children,
}: {
  caption: string;
  columns: string[];
  children: ComponentChildren;
}) {
  return (
    <TableWrap label={caption}>
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c} scope="col">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </TableWrap>
  );
}

/** The applied substitutions, each with its evidence and its Edit and Remove buttons. */
export function SubstitutionTable({
  items,
  busy,
  onEdit,
  onRemove,
}: {
  items: Substitution[];
  busy: boolean;
  onEdit: (s: Substitution) => void;
  onRemove: (s: Substitution) => void;
}) {
  if (items.length === 0) return <p class="muted">No word replaced yet.</p>;
  return (
    <TraitTable caption="Words replaced" columns={["Generation writes", "Instead of", "Evidence", "Correction"]}>
      {items.map((s) => (
        <tr key={s.from}>
          <td>
            <q>{s.to}</q>
          </td>
          <td>
            <q>{s.from}</q>
          </td>
          <td>
            <Evidence count={s.count} samples={s.samples} ids={s.content_ids} />
          </td>
          <td>
            <div class="voice-actions">
              <button type="button" disabled={busy} aria-label={`Change “${s.to}”`} onClick={() => onEdit(s)}>
                Change
              </button>
              <button
                type="button"
                disabled={busy}
                aria-label={`Remove “${s.from}” → “${s.to}”`}
                onClick={() => onRemove(s)}
              >
                Remove
              </button>
            </div>
          </td>
        </tr>
      ))}
    </TraitTable>
  );
}

/** A table of learned phrases (avoided or preferred), each with its evidence and a Remove button. */
export function PhraseTable({
  caption,
  empty,
  items,
  busy,
  onRemove,
}: {
  caption: string;
  empty: string;
  items: Phrase[];
  busy: boolean;
  onRemove: (p: Phrase) => void;
}) {
  if (items.length === 0) return <p class="muted">{empty}</p>;
  return (
    <TraitTable caption={caption} columns={["Phrase", "Evidence", "Correction"]}>
      {items.map((p) => (
        <tr key={p.phrase}>
          <td>
            <q>{p.phrase}</q>
          </td>
          <td>
            <Evidence count={p.count} samples={p.samples} ids={p.content_ids} />
          </td>
          <td>
            <button type="button" disabled={busy} aria-label={`Remove “${p.phrase}”`} onClick={() => onRemove(p)}>
              Remove
            </button>
          </td>
        </tr>
      ))}
    </TraitTable>
  );
}

/** The substitutions seen but not applied yet, under their own heading; nothing for none. */
export function ContestedList({ items }: { items: Substitution[] }) {
  if (items.length === 0) return null;
  return (
    <>
      <h3>Seen, not applied yet</h3>
      <p class="hint">
        These replace a word the profile already replaces otherwise, in fewer finalizations: one is applied once it has
        as much evidence as the one applied now.
      </p>
      <ul>
        {items.map((s) => (
          <li key={`${s.from}→${s.to}`}>
            <q>{s.to}</q> instead of <q>{s.from}</q> —{" "}
            <Evidence count={s.count} samples={s.samples} ids={s.content_ids} />
          </li>
        ))}
      </ul>
    </>
  );
}
