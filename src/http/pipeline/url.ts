/** The URL a request names, read once before any stage looks at its path. */

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * A path with its percent-encoded unreserved characters decoded; other escapes (`%2F`, `%20`) stay as sent. The
 * decoded characters are those characters (RFC 3986 §6.2.2.2): /workspaces/ws%5Fabc is /workspaces/ws_abc
 * (test/http/paths.test.ts).
 */
export function decodeUnreserved(pathname: string): string {
  return pathname.replace(/%([0-9A-Fa-f]{2})/g, (encoded, hex: string) => {
    const c = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(c) ? c : encoded;
  });
}

/**
 * The request's URL with its path decoded (decodeUnreserved). Transports hand over a valid absolute URL (node.ts
 * checks the Host header); one that does not parse is a request for "/". Decoded before anything reads the path: the
 * match, the Idempotency-Key fingerprint, the messages and the log line (with its redaction).
 */
export function requestUrl(text: string): URL {
  const url = parseUrl(text);
  if (url.pathname.includes("%")) url.pathname = decodeUnreserved(url.pathname);
  return url;
}

function parseUrl(text: string): URL {
  try {
    return new URL(text);
  } catch {
    return new URL("http://localhost/");
  }
}
