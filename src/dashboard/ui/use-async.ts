/** Data a page reads from the API: loading, the data or the error, and a way to read it again. */
import { useCallback, useEffect, useState } from "preact/hooks";

/** What useAsync answers: the data or the error of the last load, whether one runs, and how to run it again. */
export interface Async<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when the component mounts and whenever one of `deps` changes; an older answer never replaces a newer. */
export function useAsync<T>(load: () => Promise<T>, deps: unknown[]): Async<T> {
  const [state, setState] = useState<{ data?: T; error: unknown; loading: boolean }>({ error: null, loading: true });
  const [round, setRound] = useState(0);
  // The caller names what the load depends on (`deps`).
  useEffect(() => {
    let current = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => current && setState({ data, error: null, loading: false }),
      (error) => current && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => {
      current = false;
    };
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  return { ...state, data: state.data, reload };
}

/** An action a button starts: whether it runs, its error, and `run`, which resolves to the action's value or undefined. */
export function useAction<A extends unknown[], T>(action: (...args: A) => Promise<T>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (...args: A): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action(...args);
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(null) };
}
