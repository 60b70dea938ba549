import { randomUUID } from 'node:crypto'
import { createReadStream, createWriteStream, existsSync } from 'node:fs'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { createBrotliDecompress } from 'node:zlib'
import { extract } from 'tar-fs'

/**
 * Chromium for the browser tests, from the npm package `@sparticuz/chromium`: a headless build of
 * Chromium, the libraries it needs beyond glibc (NSS, NSPR, expat, as built for Amazon Linux 2023)
 * and the Open Sans font, each Brotli-compressed inside the package. `npm ci` is all a machine
 * needs: no Chromium or fonts of its own, nothing downloaded. The package's own `executablePath()`
 * is not used: it unpacks into the shared temporary folder, where runs and versions collide.
 */
export interface Chromium {
  readonly executablePath: string
  /** The browser's environment: its libraries and its fonts, and none of the machine's fonts. */
  readonly env: Record<string, string>
}

const PACKAGE = '@sparticuz/chromium'

/**
 * Unpacks the package once per installed version into `node_modules/.cache` (a few seconds and
 * 204 MB, which `npm ci` removes with the rest), into a folder of its own first and renamed into
 * place whole, so that test processes unpacking at once, or a run stopped halfway, leave either no
 * browser or a complete one.
 */
export async function unpackedChromium(): Promise<Chromium> {
  const pkg = packageFolder()
  const { version } = JSON.parse(await readFile(join(pkg, 'package.json'), 'utf8')) as {
    version: string
  }
  const folder = resolve(pkg, '..', '..', '.cache', 'rubric-council', `chromium-${version}`)
  if (!existsSync(folder)) await unpack(join(pkg, 'bin'), folder)
  return {
    executablePath: join(folder, 'chromium'),
    env: {
      ...(process.env as Record<string, string>),
      LD_LIBRARY_PATH: [join(folder, 'lib'), process.env.LD_LIBRARY_PATH].filter(Boolean).join(':'),
      FONTCONFIG_FILE: join(folder, 'fonts.conf')
    }
  }
}

function packageFolder(): string {
  try {
    // The package's entry point is build/index.js.
    return resolve(dirname(createRequire(import.meta.url).resolve(PACKAGE)), '..')
  } catch {
    throw new Error(`The browser tests take Chromium from the npm package ${PACKAGE}: run npm ci.`)
  }
}

async function unpack(bin: string, folder: string): Promise<void> {
  const partial = `${folder}.${randomUUID()}.partial`
  await mkdir(partial, { recursive: true })
  try {
    await pipeline(
      createReadStream(join(bin, 'chromium.br')),
      createBrotliDecompress(),
      createWriteStream(join(partial, 'chromium'), { mode: 0o755 })
    )
    // lib/libnss3.so and the rest; fonts/Open_Sans/*.ttf, and a fonts.conf replaced below.
    for (const archive of ['al2023.tar.br', 'fonts.tar.br']) {
      await pipeline(
        createReadStream(join(bin, archive)),
        createBrotliDecompress(),
        extract(partial)
      )
    }
    // Only these fonts, on every machine; fontconfig keeps its cache beside them.
    await writeFile(
      join(partial, 'fonts.conf'),
      [
        '<?xml version="1.0"?>',
        '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
        '<fontconfig>',
        `  <dir>${join(folder, 'fonts')}</dir>`,
        `  <cachedir>${join(folder, 'fontconfig-cache')}</cachedir>`,
        '</fontconfig>',
        ''
      ].join('\n')
    )
    await rename(partial, folder).catch((error: unknown) => {
      // Another process finished first: its copy is as good.
      if (!existsSync(folder)) throw error
    })
  } finally {
    await rm(partial, { recursive: true, force: true })
  }
}
