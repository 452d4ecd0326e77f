/**
 * The dashboard's pages are addressed by the URL's fragment (`#/keys`, `#/contents/12`): the server answers one page
 * at /, whatever the page, and a fragment never reaches the server or its log. Paths are matched against patterns
 * with `:name` parts (app.tsx lists them).
 */
import { useEffect, useState } from "preact/hooks";

/** Where the page is: the fragment's path and its query. */
export interface Location {
  path: string;
  query: URLSearchParams;
}

function readLocation(): Location {
  const hash = window.location.hash.replace(/^#/, "") || "/";
  const [path, search = ""] = hash.split("?", 2);
  return { path: path || "/", query: new URLSearchParams(search) };
}

/** What a page is given: the path's parameters and the query (pages/index.ts lists the pages). */
export interface PageProps {
  params: Record<string, string>;
  query: URLSearchParams;
}

/** The current location, re-rendering the component when it changes. */
export function useLocation(): Location {
  const [location, setLocation] = useState(readLocation);
  useEffect(() => {
    const onChange = () => setLocation(readLocation());
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return location;
}

/** The href of a page: `href("/contents/12")` is `#/contents/12`; a query is added when given. */
export function href(path: string, query?: Record<string, string>): string {
  const search = query ? new URLSearchParams(query).toString() : "";
  return `#${path}${search ? `?${search}` : ""}`;
}

/** Goes to a page. */
export function navigate(path: string, query?: Record<string, string>): void {
  window.location.hash = href(path, query).slice(1);
}

/** The parameters of a path matched against a pattern (`/contents/:id`), or undefined when it does not match. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const want = pattern.split("/");
  const got = path.split("/");
  if (want.length !== got.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(":")) params[want[i].slice(1)] = decodeURIComponent(got[i]);
    else if (want[i] !== got[i]) return undefined;
  }
  return params;
}
