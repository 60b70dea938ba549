import { dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import { maskForRunner } from './action/mask.js'
import { secretValues } from './util/secrets.js'

// The runner is told the secrets before the action's modules load (src/action/mask.ts): nothing
// they could write can show one, and the job log starts without waiting for them.
maskForRunner(secretValues(process.env))
const { run } = await import('./main.js')
// The bundle's folder (dist/), the files this check counts as its own machinery.
await run(dirname(fileURLToPath(import.meta.url)))
