/** What a trait was learned from, in words: how often, in how many finalizations, and which contents taught it. */
import { href } from "../../router.js";

const times = (n: number) => (n === 1 ? "once" : `${n} times`);
const finalizations = (n: number) => (n === 1 ? "1 finalization" : `${n} finalizations`);

/** Links to the contents a trait was learned from, comma-separated; nothing for none. */
export function ContentLinks({ ids }: { ids: number[] }) {
  if (ids.length === 0) return null;
  return (
    <span>
      {ids.map((id, i) => (
        <span key={id}>
          {i > 0 ? ", " : ""}
          <a href={href(`/contents/${id}`)}>content {id}</a>
        </span>
      ))}
    </span>
  );
}

/** A trait's evidence in words: how often it was seen, in how many finalizations, and the contents. */
export function Evidence({ count, samples, ids }: { count: number; samples: number; ids: number[] }) {
  return (
    <span class="voice-evidence">
      Seen {times(count)} in {finalizations(samples)}
      {ids.length ? ": " : "."}
      <ContentLinks ids={ids} />
    </span>
  );
}
