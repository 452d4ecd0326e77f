/** A value shared by components (the session, the account), with the components that use it re-rendered on change. */
import { useEffect, useState } from "preact/hooks";

/** A value shared by components: read it, change it, and re-render the components that use it when it changes. */
export interface Store<T> {
  get(): T;
  /** Merges the given fields into the value and tells every component using it. */
  update(next: Partial<T>): void;
  /** The value, in a component: it re-renders when the value changes. */
  use(): T;
}

/** A store holding `initial` until it is updated. */
export function createStore<T extends object>(initial: T): Store<T> {
  let value = initial;
  const listeners = new Set<() => void>();
  return {
    get: () => value,
    update(next) {
      value = { ...value, ...next };
      for (const listener of listeners) listener();
    },
    use() {
      const [, setTick] = useState(0);
      const rendered = value;
      useEffect(() => {
        const listener = () => setTick((n) => n + 1);
        listeners.add(listener);
        // An update between the render and this subscription (an answer that came first) is not missed.
        if (value !== rendered) listener();
        return () => {
          listeners.delete(listener);
        };
      }, []);
      return value;
    },
  };
}
