/**
 * The editing time sent with a finalization (edit_seconds): the time the body's textarea had the keyboard's focus
 * since the editor opened. Each focus starts a span, each blur adds it to the total, and `seconds()` counts the span
 * still open; time with the text unfocused (another tab, reading another section) does not count, since learning
 * weighs the edits by how long the person worked on the words.
 */
import { useRef } from "preact/hooks";

/** The seconds the person has spent with the text focused since the editor opened, for finalize's edit_seconds. */
export function useEditTime() {
  const total = useRef(0);
  const since = useRef<number | null>(null);
  return {
    onFocus: () => {
      since.current = performance.now();
    },
    onBlur: () => {
      if (since.current !== null) total.current += performance.now() - since.current;
      since.current = null;
    },
    /** Whole seconds focused so far, within the API's bound of 30 days. */
    seconds: () => {
      const open = since.current !== null ? performance.now() - since.current : 0;
      return Math.min(30 * 86_400, Math.round((total.current + open) / 1000));
    },
  };
}
