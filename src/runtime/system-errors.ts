/** The reason of a failed file system call in words, for the messages of every layer. */

/** Why a file system call failed, in words (Node's "EACCES: permission denied, open '/x'" → "permission denied"). */
export function systemErrorReason(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !/^E[A-Z]+$/.test(code)) return undefined;
  if (code === "EISDIR") return "is a directory: give a file name";
  return (e as Error).message.replace(/^E[A-Z]+: /, "").replace(/, \w+(?: '.*')?$/s, "");
}
