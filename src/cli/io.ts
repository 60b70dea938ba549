/** What a CLI command may touch, injected so tests run commands in-process. */
export interface CliIo {
  readonly stdout: (line: string) => void
  readonly stderr: (line: string) => void
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
  /** stderr is a terminal: progress is drawn as live status lines, redrawn in place. */
  readonly live?: boolean
}
