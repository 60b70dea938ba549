import { DefaultArtifactClient } from '@actions/artifact'
import * as core from '@actions/core'
import { dirname } from 'node:path'
import { stopGatesOnCancel } from './action/cancel.js'
import { coreIO } from './action/io.js'
import { gatesAction } from './gates-action.js'
import { actionGitHub } from './github/port.js'
import { intervalTicker } from './util/ticker.js'

/**
 * The gates sub-action's shell: the runner's environment, inputs and log, GitHub through Octokit
 * and the run's artifacts through the results service, handed to one run (src/gates-action.ts).
 *
 * Everything it runs after the pull request's code (the upload) is already loaded: the bundle
 * imports each of its chunks at start (scripts/bundle.mjs), so a setup command that rewrites the
 * runner's copy of this action changes nothing this process does, and no step after it is needed.
 */
export async function runGatesAction(): Promise<void> {
  const env = process.env
  const io = coreIO()
  const artifacts = new DefaultArtifactClient()
  stopGatesOnCancel(io)
  await gatesAction({
    env,
    getInput: name => core.getInput(name),
    io,
    github: token => actionGitHub(env, token, io.warning),
    upload: async (name, file) => (await artifacts.uploadArtifact(name, [file], dirname(file))).id,
    ticker: intervalTicker
  })
}
