/** Queries on server settings, revoked sessions, the audit log, and the readiness ping. */
import type { SqlConnection } from "./connection.js";

/** One row of the audit log; `details` is JSON text. */
export interface AuditRow {
  id: number;
  account_id: number | null;
  actor: string;
  action: string;
  target: string | null;
  details: string | null;
  created_at: string;
}

/** Prepared statements for settings, revoked sessions, the audit log and the readiness ping. */
export function miscQueries(db: SqlConnection, now: () => number) {
  const ping = db.prepare<[], { ok: number }>("SELECT 1 AS ok");
  const getSetting = db.prepare<[string], { value: string }>("SELECT value FROM settings WHERE key = ?");
  const putSetting = db.prepare<[string, string]>(
    "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT DO NOTHING",
  );
  const revokeSession = db.prepare<[string, string]>(
    "INSERT INTO revoked_sessions (jti, expires_at) VALUES (?, ?) ON CONFLICT DO NOTHING",
  );
  const isRevoked = db.prepare<[string], { jti: string }>("SELECT jti FROM revoked_sessions WHERE jti = ?");
  const purgeSessions = db.prepare<[string]>("DELETE FROM revoked_sessions WHERE expires_at < ?");
  const audit = db.prepare<[number | null, string, string, string | null, string | null, string]>(
    "INSERT INTO audit_log (account_id, actor, action, target, details, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  const auditPage = db.prepare<[number, number, number], AuditRow>(
    "SELECT * FROM audit_log WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
  );
  const getUserSettings = db.prepare<[number], { value: string; updated_at: string }>(
    "SELECT value, updated_at FROM user_settings WHERE user_id = ?",
  );
  const putUserSettings = db.prepare<[number, string, string]>(
    "INSERT INTO user_settings (user_id, value, updated_at) VALUES (?, ?, ?) ON CONFLICT(user_id) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
  );
  const getPrefs = db.prepare<[number], { enabled: number; apply_to_generation: number; updated_at: string }>(
    "SELECT enabled, apply_to_generation, updated_at FROM learning_preferences WHERE account_id = ?",
  );
  const putPrefs = db.prepare<[number, number, number, string]>(
    "INSERT INTO learning_preferences (account_id, enabled, apply_to_generation, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT(account_id) DO UPDATE SET enabled = excluded.enabled, apply_to_generation = excluded.apply_to_generation, updated_at = excluded.updated_at",
  );
  return {
    /** Asks the database for one row: throws when the connection cannot answer (/readyz, routes/system.ts). */
    ping(): void {
      ping.get();
    },
    userSettings: (userId: number) => getUserSettings.get(userId),
    putUserSettings(userId: number, value: unknown, now: string): void {
      putUserSettings.run(userId, JSON.stringify(value), now);
    },
    learningPreferences: (accountId: number) => getPrefs.get(accountId),
    putLearningPreferences(accountId: number, enabled: boolean, applyToGeneration: boolean, now: string): void {
      putPrefs.run(accountId, enabled ? 1 : 0, applyToGeneration ? 1 : 0, now);
    },
    setting: (key: string) => getSetting.get(key)?.value,
    /** Sets a setting only if absent; returns the value in force. */
    settingOnce(key: string, value: string): string {
      putSetting.run(key, value);
      return getSetting.get(key)!.value;
    },
    revokeSession(jti: string, expiresAt: string): void {
      revokeSession.run(jti, expiresAt);
    },
    isSessionRevoked: (jti: string) => isRevoked.get(jti) !== undefined,
    purgeRevokedSessions: (now: string) => purgeSessions.run(now).changes,
    /** Adds a row to the audit log, stamped `atMs` (default: the store's clock). */
    audit(
      accountId: number | null,
      actor: string,
      action: string,
      target: string | null,
      details?: unknown,
      atMs = now(),
    ): void {
      audit.run(
        accountId,
        actor,
        action,
        target,
        details === undefined ? null : JSON.stringify(details),
        new Date(atMs).toISOString(),
      );
    },
    auditPage: (accountId: number, beforeId: number, limit: number) => auditPage.all(accountId, beforeId, limit),
  };
}
