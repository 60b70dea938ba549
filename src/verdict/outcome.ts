import type { ExitCode, VerdictKind } from './types.js'

/** The verdict's exit code (SPEC: PASS 0, FAIL 1, UNCLEAR 2), for the CLI and a failed step. */
export const EXIT_CODE: Readonly<Record<VerdictKind, ExitCode>> = { PASS: 0, FAIL: 1, UNCLEAR: 2 }
