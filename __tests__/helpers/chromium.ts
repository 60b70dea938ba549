import { randomUUID } from 'node:crypto'
import { createReadStream, createWriteStream, existsSync } from 'node:fs'
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, resolve, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { brotliDecompressSync, createBrotliDecompress } from 'node:zlib'

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
      await untar(brotliDecompressSync(await readFile(join(bin, archive))), partial)
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

/**
 * Writes a tar archive's folders and files under `into`. The package's archives hold nothing else;
 * anything else (a link, say) or a name that would land outside `into` is an error.
 */
async function untar(tar: Buffer, into: string): Promise<void> {
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512)
    if (header.every(byte => byte === 0)) break
    const field = (from: number, length: number): string =>
      header.toString('latin1', from, from + length).replace(/\0.*$/s, '')
    const name = [field(345, 155), field(0, 100)].filter(Boolean).join('/')
    const size = parseInt(field(124, 12).trim() || '0', 8)
    const type = field(156, 1) || '0'
    const path = resolve(into, name)
    if (!path.startsWith(into + sep)) throw new Error(`${name}: outside the archive's folder`)
    const body = tar.subarray(at + 512, at + 512 + size)
    if (type === '5') await mkdir(path, { recursive: true })
    else if (type === '0') {
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, body, { mode: parseInt(field(100, 8).trim() || '644', 8) })
    } else throw new Error(`${name}: a tar entry of type ${type}, which this does not unpack`)
    at += 512 + Math.ceil(size / 512) * 512
  }
}
