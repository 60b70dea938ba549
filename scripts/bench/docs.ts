import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './child.js'

const DOCS = join(ROOT, 'docs/performance.md')

/**
 * Puts what a bench mode printed into docs/performance.md, between `<!-- bench:name -->` and
 * `<!-- /bench:name -->`, with the command that printed it: the docs quote the bench's own output,
 * never a copy by hand. Without the markers, says so and writes nothing.
 */
export function writeDocsBlock(name: string, command: string, printed: string): void {
  const open = `<!-- bench:${name} -->`
  const close = `<!-- /bench:${name} -->`
  const docs = readFileSync(DOCS, 'utf8')
  const from = docs.indexOf(open)
  const to = docs.indexOf(close)
  if (from < 0 || to < from) {
    process.stderr.write(`bench: docs/performance.md has no ${open} … ${close}: not written\n`)
    return
  }
  const block = `${open}\n\nPrinted by \`${command}\`:\n\n\`\`\`text\n${printed.trimEnd()}\n\`\`\`\n\n`
  writeFileSync(DOCS, docs.slice(0, from) + block + docs.slice(to))
  process.stderr.write(`bench: wrote docs/performance.md (${name})\n`)
}
