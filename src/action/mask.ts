/**
 * The runner's `add-mask` workflow command
 * (https://docs.github.com/en/actions/reference/workflow-commands-for-github-actions#masking-a-value-in-a-log),
 * written here rather than through @actions/core, whose module graph (its HTTP client among it) is
 * hundreds of kilobytes: the action's entry tells the runner its secrets before it loads anything
 * else (src/index.ts), and the action's I/O tells it through this same function, so each value is
 * written once. The data is escaped as the runner unescapes a command's data: `%`, CR and LF.
 */
const told = new Set<string>()

export function maskForRunner(
  values: readonly string[],
  write: (text: string) => void = text => process.stdout.write(text)
): void {
  for (const value of values) {
    if (value === '' || told.has(value)) continue
    told.add(value)
    write(`::add-mask::${escapeData(value)}\n`)
  }
}

function escapeData(value: string): string {
  return value.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A')
}
