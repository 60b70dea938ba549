// Rebuilds dist/ from src/: the action (dist/index.js), the CLI (dist/cli/index.js) and the
// gates sub-action (gates/dist/index.js).
// dist/ is committed; CI runs this and fails if anything changed.
import { execFileSync } from 'node:child_process'
import { copyFileSync, rmSync } from 'node:fs'

const ncc = [
  'node_modules/@vercel/ncc/dist/ncc/cli.js',
  'build',
  '--quiet',
  '--no-source-map-register'
]
rmSync('dist', { recursive: true, force: true })
rmSync('gates/dist', { recursive: true, force: true })
execFileSync(process.execPath, [...ncc, 'src/index.ts', '-o', 'dist'], { stdio: 'inherit' })
execFileSync(process.execPath, [...ncc, 'src/bin.ts', '-o', 'dist/cli'], { stdio: 'inherit' })
execFileSync(process.execPath, [...ncc, 'src/gates-index.ts', '-o', 'gates/dist'], {
  stdio: 'inherit'
})
// The tokenizer's vocabulary is read from beside the bundle (src/evidence/tokens.ts).
for (const dir of ['dist', 'dist/cli']) {
  copyFileSync('src/evidence/o200k_base.bin', `${dir}/o200k_base.bin`)
}
