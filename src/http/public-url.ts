/** URLs of this server's own operations, as clients reach it (`serve --public-url`). */

/**
 * An absolute URL of one of this server's operations under its public address: `path` (from its leading slash)
 * after the address without its trailing slashes, so that `https://host/content/` gives
 * `https://host/content/api/v1/…`, not `…/content//api/v1/…`.
 */
export function publicUrlOf(publicUrl: string, path: string): string {
  return `${publicUrl.replace(/\/+$/, "")}${path}`;
}
