import { DEFAULT_GATE_OPTIONS, PARALLEL_GATES_WHEN_TRUE } from './defaults.js'
import { abbreviate, type AtLine, type Locate } from './errors.js'
import type { CheckedFrontMatter } from './front-matter.js'
import type { BodyItem } from './markdown.js'
import type { Gate, GateOptions } from './types.js'
import type { Path } from './zod-issues.js'
import { failed, ok, type Result } from '../util/result.js'

/** The rubric's gates: from the front matter's `gates`, and the body's Gates section. */

export function buildGateOptions(raw: CheckedFrontMatter['values']['gates']): GateOptions {
  if (raw === undefined || Array.isArray(raw)) return DEFAULT_GATE_OPTIONS
  const parallel =
    raw.parallel === undefined || raw.parallel === false
      ? 1
      : raw.parallel === true
        ? PARALLEL_GATES_WHEN_TRUE
        : raw.parallel
  return {
    timeout: raw.timeout ?? DEFAULT_GATE_OPTIONS.timeout,
    parallel,
    workingDirectory: raw.working_directory ?? DEFAULT_GATE_OPTIONS.workingDirectory
  }
}

export function buildGates(
  raw: CheckedFrontMatter['values']['gates'],
  items: readonly BodyItem[],
  options: GateOptions,
  locate: Locate,
  atLine: AtLine
): Gate[] {
  const gates: Gate[] = []
  const commands = raw === undefined ? [] : Array.isArray(raw) ? raw : (raw.commands ?? [])
  const base: Path = Array.isArray(raw) ? ['gates'] : ['gates', 'commands']
  commands.forEach((command, i) => {
    const { line } = locate([...base, i], 'value')
    if (typeof command === 'string') gates.push({ command, timeout: options.timeout, line })
    else gates.push({ command: command.run, timeout: command.timeout ?? options.timeout, line })
  })
  for (const item of items) {
    const parsed = parseGateItem(item.text)
    if (!parsed.ok) atLine(item.line, item.column, 'gate-syntax', parsed.problem)
    else gates.push({ command: parsed.value, timeout: options.timeout, line: item.line })
  }
  return gates
}

/**
 * A gate item is a code span holding the command, optionally followed by a description:
 * "- `pytest tests/` unit tests". Spans of several backticks allow backticks inside.
 */
function parseGateItem(text: string): Result<string> {
  const open = /^`+/.exec(text)?.[0]
  if (!open) {
    return failed(
      `gate "${abbreviate(text)}" is not a command in backticks; write it as - \`your command\``
    )
  }
  let search = open.length
  for (;;) {
    const close = text.indexOf(open, search)
    if (close === -1) return failed(`gate "${abbreviate(text)}" has no closing ${open}`)
    // Only a run of exactly as many backticks closes the span.
    const run = /^`+/.exec(text.slice(close))?.[0].length ?? open.length
    if (run !== open.length) {
      search = close + run
      continue
    }
    // Surrounding spaces mean nothing to the shell, so the command is trimmed.
    const command = text.slice(open.length, close).replace(/\n/g, ' ').trim()
    if (command === '') return failed('gate command is empty')
    return ok(command)
  }
}
