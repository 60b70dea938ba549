// `npm pack` runs this first (package.json "prepack"): the commit the package is packed from goes
// into commit.json, which the package ships, so that `rubric-council init` run from the package
// can pin the action to its own commit (src/init/pin-facts.ts). npm 11 writes no `gitHead`
// into a packed package.json. "postpack" removes the file again: the checkout's HEAD is the truth
// there. Outside a git checkout of this folder nothing is recorded, and init says how to pin by hand.
import { execFileSync } from 'node:child_process'
import { realpathSync, rmSync, writeFileSync } from 'node:fs'

const FILE = 'commit.json'

if (process.argv[2] === 'remove') {
  rmSync(FILE, { force: true })
} else {
  rmSync(FILE, { force: true })
  const git = (...args) =>
    execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  let commit
  try {
    if (realpathSync(git('rev-parse', '--show-toplevel')) === realpathSync('.'))
      commit = git('rev-parse', 'HEAD^{commit}')
  } catch {
    // Not a git checkout: nothing to record.
  }
  if (commit !== undefined) writeFileSync(FILE, `${JSON.stringify({ commit })}\n`)
}
