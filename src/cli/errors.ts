/** The two failures a command ends with: a failure (exit 1) and a usage error (exit 2), each one line on stderr. */
/** A failure the CLI reports as one line on stderr with exit status 1. */
export class CliError extends Error {}

/** A bad argument: one line on stderr and exit status 2. */
export class UsageError extends Error {}
