/** The description's default server URLs, shared by `serve` and `openapi`. */

/** The default server URLs of the description, for a server listening on host:port (`serve` and `openapi`). */
export function defaultServerUrls(host: string, port: number): { publicUrl: string; stagingUrl: string } {
  // An address that means "every interface" (0.0.0.0, ::) is none a client can use: the description names this
  // machine's loopback then (--public-url gives the address clients use).
  const wildcard = host === "0.0.0.0" || host === "0" || host === "::" || host === "[::]";
  const usable = wildcard ? (host.includes(":") ? "::1" : "127.0.0.1") : host;
  const ipv6 = usable.includes(":");
  const h = ipv6 ? `[${usable.replace(/^\[|\]$/g, "")}]` : usable;
  const publicUrl = `http://${h}:${port}`;
  // The staging server: staging.<name> for a host name (staging.localhost for the loopback), and, for an IP
  // address, which has no such name, this server itself (spec §Versioning 5 lists both servers).
  const ip = ipv6 || /^\d{1,3}(\.\d{1,3}){3}$/.test(usable);
  const stagingHost = usable === "127.0.0.1" ? "staging.localhost" : ip ? undefined : `staging.${usable}`;
  return { publicUrl, stagingUrl: stagingHost ? `http://${stagingHost}:${port}` : publicUrl };
}

/** `serve`'s default host, which `openapi` describes when given no URL. */
export const DEFAULT_HOST = "127.0.0.1";
/** `serve`'s default port, which `openapi` describes when given no URL. */
export const DEFAULT_PORT = 8080;
