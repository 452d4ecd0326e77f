/**
 * What every page needs to know about the signed-in account: its entitlements (plan, API access, the analysis quota)
 * and its workspaces, with the one the pages work in (the default until the person picks another in the header).
 */
import { api, ok } from "./api/client.js";
import type { components } from "./api/schema.js";
import { createStore } from "./store.js";

/** The plan's entitlements, as GET /users/me/entitlements answers them. */
export type Entitlements = components["schemas"]["Entitlements"];
/** A workspace, as GET /workspaces lists it. */
export type Workspace = components["schemas"]["Workspace"];

interface AccountState {
  entitlements: Entitlements | null;
  workspaces: Workspace[];
  /** The workspace the pages list and create in. */
  workspaceId: string | null;
  error: unknown;
}

const store = createStore<AccountState>({ entitlements: null, workspaces: [], workspaceId: null, error: null });

/**
 * Reads the entitlements and the workspaces again (after a sign-in, or a change on the workspaces page). An account
 * whose plan has no API access reads no workspaces: a web session of such a plan reaches only the account's own
 * reads, its keys, the device approval and /admin (the routes' planExempt), and the pages show the upgrade prompt.
 */
export async function loadAccount(): Promise<void> {
  try {
    const entitlements = await ok(api.GET("/api/v1/users/me/entitlements"));
    if (!entitlements.api_access) {
      store.update({ entitlements, workspaces: [], workspaceId: null, error: null });
      return;
    }
    const workspaces = await ok(api.GET("/api/v1/workspaces"));
    const kept = workspaces.data.find((w) => w.id === store.get().workspaceId);
    const chosen = kept ?? workspaces.data.find((w) => w.is_default) ?? workspaces.data[0];
    store.update({ entitlements, workspaces: workspaces.data, workspaceId: chosen?.id ?? null, error: null });
  } catch (error) {
    store.update({ error });
  }
}

/** Picks the workspace the pages work in. */
export function chooseWorkspace(id: string): void {
  store.update({ workspaceId: id });
}

/** Forgets the account (at sign-out). */
export function clearAccount(): void {
  store.update({ entitlements: null, workspaces: [], workspaceId: null, error: null });
}

/** Whether the plan has API access: starter and pro accounts see the upgrade prompt instead of most pages. */
export function hasApiAccess(entitlements: Entitlements | null): boolean {
  return entitlements?.api_access ?? true;
}

/** The account state, re-rendering the component when it changes. */
export const useAccount = store.use;
