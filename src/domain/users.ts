/**
 * A user's password and removal (`users set-password`, `users delete`). A new password ends the user's sessions (the
 * session generation moves: domain/sessions.ts) and forgets their email's failed sign-ins; a deleted user's sessions
 * end with them (a token's user must exist), and the keys they issued keep working as the account's (their owner
 * becomes null, as a key the command line issued: DESIGN §10). Tests: test/cli/user-passwords.test.ts,
 * test/cli/admin-delete.test.ts.
 */
import type { Store } from "../db/store.js";
import type { UserRow } from "../db/users.js";
import type { Actor } from "./admin.js";
import { clearEmailBackoff } from "./sign-in-backoff.js";

/** What a password change did besides storing the hash. */
export interface PasswordChange {
  /** Whether the email had failed sign-ins counted, now forgotten. */
  backoff_cleared: boolean;
}

/** Stores a new (already hashed) password, ending the user's sessions and clearing their email's sign-in backoff. */
export function setUserPassword(store: Store, actor: Actor, user: UserRow, passwordHash: string): PasswordChange {
  return store.transaction(() => {
    store.users.setPassword(user.id, passwordHash);
    const cleared = clearEmailBackoff(store, user.email);
    store.misc.audit(user.account_id, actor, "user.set_password", String(user.id), { sessions_ended: true });
    return { backoff_cleared: cleared };
  });
}

/**
 * Why deleting a user takes more than asking: the account's last admin leaves it with nobody to manage its users,
 * keys and workspaces from the web (only the command line could); undefined when nothing stands against it.
 */
export function userDeletionConcern(store: Store, user: UserRow): string | undefined {
  if (user.role !== "admin") return undefined;
  const admins = store.users.list(user.account_id).filter((u) => u.role === "admin").length;
  if (admins > 1) return undefined;
  return `user ${user.id} is the last admin of account ${user.account_id}: nobody would manage its users, keys and workspaces from the web`;
}

/** What a user's deletion left: the keys they issued, which stay in use as the account's. */
export interface UserDeletion {
  keys_kept: number;
}

/** Deletes a user (their settings go with them; their keys' owner becomes null) and forgets their sign-in backoff. */
export function deleteUser(store: Store, actor: Actor, user: UserRow): UserDeletion {
  return store.transaction(() => {
    const kept = store.apiKeys.list(user.account_id).filter((k) => k.created_by_user_id === user.id).length;
    store.users.remove(user.id);
    clearEmailBackoff(store, user.email);
    store.misc.audit(user.account_id, actor, "user.delete", String(user.id), { email: user.email, keys_kept: kept });
    return { keys_kept: kept };
  });
}
