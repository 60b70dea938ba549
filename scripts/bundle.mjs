// Rebuilds dist/ from src/: the action (dist/index.js) and the CLI (dist/cli/index.js).
// dist/ is committed; CI runs this and fails if anything changed.
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'

const ncc = [
  'node_modules/@vercel/ncc/dist/ncc/cli.js',
  'build',
  '--quiet',
  '--no-source-map-register'
]
rmSync('dist', { recursive: true, force: true })
execFileSync(process.execPath, [...ncc, 'src/index.ts', '-o', 'dist'], { stdio: 'inherit' })
execFileSync(process.execPath, [...ncc, 'src/bin.ts', '-o', 'dist/cli'], { stdio: 'inherit' })
