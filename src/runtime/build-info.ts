/** What `--version` and the server's start line say: the product's version and which build of it this is. */

/** Set by the build (build.config.ts): the commit it was built from and when. Absent when run from source. */
declare const __CS_BUILD_INFO__: { commit: string; built: string } | undefined;

/** The product's version; package.json says the same (a test holds them together). */
export const PRODUCT_VERSION = "1.0.0";

/**
 * `1.0.0 (commit 41516a3c9f12, built 2026-11-23T08:00:00Z, Node v24.21.0)` for the executable, `1.0.0 (from source,
 * Node v20.20.2)` otherwise. The commit ends in `-modified` when the tree had uncommitted changes, and is `unknown`
 * when the build ran outside a git checkout: two executables of one version are told apart by the rest.
 */
export function versionText(): string {
  const info = typeof __CS_BUILD_INFO__ !== "undefined" ? __CS_BUILD_INFO__ : undefined;
  const origin = info ? `commit ${info.commit}, built ${info.built}` : "from source";
  return `${PRODUCT_VERSION} (${origin}, Node ${process.version})`;
}
