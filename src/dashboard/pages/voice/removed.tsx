/** What a person removed from the profile: learning does not take it again from the contents that had taught it. */
import type { Profile } from "./data.js";
import { ContentLinks } from "./evidence.js";

/** The traits a person removed, each with the contents that had taught it; nothing for none. */
export function RemovedList({ removed }: { removed: Profile["removed"] }) {
  const lines = [
    ...removed.substitutions.map((s) => ({
      key: `s:${s.from}→${s.to}`,
      text: `“${s.to}” instead of “${s.from}”`,
      ids: s.content_ids,
    })),
    ...removed.avoided_phrases.map((p) => ({
      key: `a:${p.phrase}`,
      text: `leaving out “${p.phrase}”`,
      ids: p.content_ids,
    })),
    ...removed.preferred_phrases.map((p) => ({
      key: `p:${p.phrase}`,
      text: `preferring “${p.phrase}”`,
      ids: p.content_ids,
    })),
  ];
  if (lines.length === 0) return null;
  return (
    <section class="panel" aria-labelledby="voice-removed">
      <h2 id="voice-removed">Removed by a person</h2>
      <p class="hint">Not learned again from the edits of these contents; a new edit may teach it again.</p>
      <ul>
        {lines.map((l) => (
          <li key={l.key}>
            {l.text}
            {l.ids.length ? " — from " : ""}
            <ContentLinks ids={l.ids} />
          </li>
        ))}
      </ul>
    </section>
  );
}
