/** The keyboard way to move a content: a dialog with a date field, or removing its planned day. */
import { useState } from "preact/hooks";
import { Dialog } from "../../ui/dialog.js";
import { Field } from "../../ui/field.js";
import type { Content } from "./data.js";

type Save = (content: Content, day: string | null) => void;

/** The dialog that moves `content` to another day or removes its planned day; open while `content` is set. */
export function MoveDialog({
  content,
  suggestedDay,
  onSave,
  onClose,
}: {
  content: Content | null;
  suggestedDay: string;
  onSave: Save;
  onClose: () => void;
}) {
  const title = content ? content.title || `Untitled content ${content.content_id}` : "";
  const verb = content?.scheduled_publish_day ? "Move" : "Plan";
  return (
    <Dialog open={content !== null} title={`${verb} “${title}”`} onClose={onClose}>
      {content ? (
        <MoveForm
          key={content.content_id}
          content={content}
          suggestedDay={suggestedDay}
          onSave={onSave}
          onClose={onClose}
        />
      ) : null}
    </Dialog>
  );
}

function MoveForm({
  content,
  suggestedDay,
  onSave,
  onClose,
}: {
  content: Content;
  suggestedDay: string;
  onSave: Save;
  onClose: () => void;
}) {
  const current = content.scheduled_publish_day;
  const [day, setDay] = useState(current ?? suggestedDay);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        if (day) onSave(content, day);
      }}
    >
      <p class="muted">{current ? `Planned for ${current}.` : "Not planned yet."}</p>
      <Field label="Planned day" hint="Kept as you give it (YYYY-MM-DD), whatever your time zone.">
        <input type="date" required value={day} onInput={(e) => setDay(e.currentTarget.value)} />
      </Field>
      <div class="actions">
        <button type="submit" class="primary">
          Save the day
        </button>
        {current ? (
          <button type="button" onClick={() => onSave(content, null)}>
            Remove the planned day
          </button>
        ) : null}
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
