import type { BuildOptions } from 'esbuild'

/** `npm run bundle`'s entries: output path (no extension) → source. */
export declare const ENTRIES: Readonly<Record<string, string>>
/** `npm run bundle`'s esbuild options (scripts/bundle-options.mjs). */
export declare const BUILD_OPTIONS: BuildOptions & { metafile: true }
