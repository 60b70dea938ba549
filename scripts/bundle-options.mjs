// The esbuild options of `npm run bundle` (scripts/bundle.mjs), shared with the benchmark's CPU
// profile (scripts/bench/profile.ts), which builds the same bundle with source maps to tell which
// package the measured dist/ code comes from.
import { isBuiltin } from 'node:module'

export const ENTRIES = {
  'dist/index': 'src/index.ts',
  'dist/cli/index': 'src/bin.ts',
  'gates/dist/index': 'src/gates-index.ts'
}

/**
 * An optional dependency that is not installed (kerberos for Negotiate proxy authentication,
 * supports-color for debug's colours) would be looked up at run time in the node_modules folders
 * above the bundle, when first used: for the gates sub-action after the pull request's code ran,
 * which could have put one there. It is bundled as a module that exports nothing instead, so that
 * the bundles read nothing but themselves and Node's own modules.
 */
const absent = {
  name: 'absent',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async args => {
      if (args.pluginData === 'absent' || isBuiltin(args.path)) return undefined
      const found = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'absent'
      })
      return found.errors.length === 0 ? undefined : { path: args.path, namespace: 'absent' }
    })
    build.onLoad({ filter: /./, namespace: 'absent' }, () => ({ contents: '', loader: 'js' }))
  }
}

export const BUILD_OPTIONS = {
  entryPoints: ENTRIES,
  outdir: '.',
  chunkNames: 'dist/chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  minify: true,
  // Licence comments are gathered into licenses.txt instead.
  legalComments: 'none',
  metafile: true,
  // Chunk names hash the input paths: a node_modules that is a link (a git worktree's, say) is read
  // by the path through it, as CI's installed one is, so that both build the same files.
  preserveSymlinks: true,
  logLevel: 'warning',
  plugins: [absent],
  // CommonJS dependencies call require() for Node's modules; an ES module has none of its own.
  banner: {
    js: "import{createRequire as __rcRequire}from'node:module';const require=__rcRequire(import.meta.url);"
  }
}
