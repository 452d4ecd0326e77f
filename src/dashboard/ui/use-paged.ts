/** A list the API answers a page at a time (data, has_more, next_cursor): the pages read so far, and the next one. */
import { useEffect, useState } from "preact/hooks";
import { nextCursorOf, type PageOf } from "../api/client.js";
import { useAction, useAsync } from "./use-async.js";

/** The first page whenever `deps` change (or `reload`), then each next page appended by `more` ("Older entries"). */
export function usePaged<T>(load: (cursor: string | undefined) => Promise<PageOf<T>>, deps: unknown[]) {
  const [items, setItems] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const first = useAsync(() => load(undefined), deps);
  useEffect(() => {
    if (!first.data) return;
    setItems(first.data.data);
    setNext(nextCursorOf(first.data) ?? null);
  }, [first.data]);
  const nextPage = useAction(async () => {
    const page = await load(next ?? undefined);
    setItems((read) => [...read, ...page.data]);
    setNext(nextCursorOf(page) ?? null);
  });
  return {
    items,
    hasMore: next !== null,
    loading: first.loading,
    loadingMore: nextPage.busy,
    error: first.error ?? nextPage.error,
    more: () => void nextPage.run(),
    reload: first.reload,
  };
}
