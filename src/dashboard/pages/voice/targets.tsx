/** The targets the writers edit towards (sentence length, reading ease), in words, and setting them by hand. */
import { useState } from "preact/hooks";
import { Field } from "../../ui/field.js";
import type { Correction, Traits } from "./data.js";

function editTime(seconds: number | null): string {
  if (seconds === null) return "not measured yet";
  const minutes = Math.floor(seconds / 60);
  const rest = Math.round(seconds % 60);
  return minutes ? `${minutes} min ${rest} s on average` : `${rest} s on average`;
}

/** A number field's value, or null when it is empty (null forgets the target: the next edit teaches it again). */
const numberOrNull = (text: string) => (text.trim() === "" ? null : Number(text));

/** The profile's targets in words, and the form that sets them by hand (an empty field clears one). */
export function Targets({
  traits,
  busy,
  onSet,
}: {
  traits: Traits;
  busy: boolean;
  onSet: (set: NonNullable<Correction["set"]>) => void;
}) {
  const [words, setWords] = useState(traits.target_sentence_words?.toString() ?? "");
  const [ease, setEase] = useState(traits.readability_target?.toString() ?? "");
  return (
    <section class="panel" aria-labelledby="voice-targets">
      <h2 id="voice-targets">Sentence length and reading ease</h2>
      <ul>
        <li>
          Sentences of{" "}
          {traits.target_sentence_words === null
            ? "no learned length"
            : `about ${Math.round(traits.target_sentence_words)} words`}
          .
        </li>
        <li>
          Reading ease{" "}
          {traits.readability_target === null
            ? "not learned"
            : `${Math.round(traits.readability_target)} (Flesch, 0 to 100: higher reads more easily)`}
          .
        </li>
        <li>Editing a draft takes {editTime(traits.average_edit_seconds)}.</li>
      </ul>
      <form
        class="voice-targets"
        onSubmit={(event) => {
          event.preventDefault();
          onSet({ target_sentence_words: numberOrNull(words), readability_target: numberOrNull(ease) });
        }}
      >
        <Field label="Sentence length, in words" hint="3 to 60; empty forgets it until the next edit teaches it.">
          <input
            type="number"
            step="any"
            min={3}
            max={60}
            value={words}
            onInput={(e) => setWords(e.currentTarget.value)}
          />
        </Field>
        <Field label="Reading ease" hint="0 to 100; empty forgets it.">
          <input
            type="number"
            step="any"
            min={0}
            max={100}
            value={ease}
            onInput={(e) => setEase(e.currentTarget.value)}
          />
        </Field>
        <button type="submit" disabled={busy}>
          Set the targets
        </button>
      </form>
    </section>
  );
}
