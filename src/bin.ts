import { main } from './cli.js'

try {
  process.exitCode = await main(process.argv.slice(2), {
    stdout: line => process.stdout.write(`${line}\n`),
    stderr: line => process.stderr.write(`${line}\n`),
    env: process.env,
    cwd: process.cwd(),
    live: process.stderr.isTTY
  })
} catch (error) {
  // A bug, not a user error: say so, and never exit 0.
  process.stderr.write(
    `rubric-council: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`
  )
  process.exitCode = 2
}
