/** The score of the text in the editor (POST /scoring with the text): 0–100 and each weighed component. */

import { useState } from "preact/hooks";
import { api, ok } from "../../api/client.js";
import type { components } from "../../api/schema.js";
import { ErrorNote } from "../../ui/error-note.js";
import { Busy } from "../../ui/page.js";
import { useAction } from "../../ui/use-async.js";

type Scoring = components["schemas"]["Scoring"];

const NAMES: Record<string, string> = {
  readability: "Readability",
  structure: "Structure",
  keywords: "Keywords",
  prose: "Prose",
  voice: "Voice match",
};

/** Scores a text (POST /scoring) and shows the score with each of its components. */
export function Score({ text }: { text: string }) {
  const [scoring, setScoring] = useState<Scoring>();
  const score = useAction(async () => setScoring(await ok(api.POST("/api/v1/scoring", { body: { text } }))));
  return (
    <section class="panel" aria-labelledby="score-heading">
      <h2 id="score-heading">Score</h2>
      <div class="actions">
        <button type="button" disabled={score.busy || !text.trim()} onClick={() => score.run()}>
          Score the text
        </button>
      </div>
      {score.busy ? <Busy label="Scoring" /> : null}
      <ErrorNote error={score.error} />
      {scoring ? (
        <div>
          <p>
            Score: <strong>{Math.round(scoring.score)}</strong> of 100
          </p>
          <ul class="score-components">
            {Object.entries(scoring.components).map(([name, part]) =>
              part ? (
                <li key={name}>
                  {NAMES[name] ?? name}: {Math.round(part.score)} of 100 (weight {Math.round(part.weight * 100)} %)
                </li>
              ) : null,
            )}
          </ul>
          <p class="muted">
            {scoring.stats.words} words, {scoring.stats.sentences} sentences; Flesch reading ease{" "}
            {Math.round(scoring.readability.flesch_reading_ease)}.
          </p>
        </div>
      ) : null}
    </section>
  );
}
