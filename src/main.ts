import * as core from '@actions/core'
import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runAction } from './action/action.js'
import { stopGatesOnCancel } from './action/cancel.js'
import { coreIO } from './action/io.js'
import { actionGitHub } from './github/port.js'
import { intervalTicker } from './util/ticker.js'

/**
 * The action's shell: the runner's environment, inputs and log, and GitHub through Octokit, handed
 * to one run (src/action/action.ts). `bundleDir` is where the action's own files are: the entry's
 * folder, which src/index.ts gives (this module is in a chunk of the bundle). Called without
 * arguments, as `@github/local-action` does, this module's own folder.
 */
export async function run(bundleDir = dirname(fileURLToPath(import.meta.url))): Promise<void> {
  const env = process.env
  const io = coreIO()
  stopGatesOnCancel(io)
  await runAction({
    env,
    getInput: name => core.getInput(name),
    io,
    github: token => actionGitHub(env, token, io.warning),
    bundleDir,
    ticker: intervalTicker
  })
}
