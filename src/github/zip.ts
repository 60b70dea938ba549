import { crc32, inflateRawSync } from 'node:zlib'

/**
 * One file out of a zip archive, read entirely in memory, for archives a job that ran untrusted
 * code produced (a workflow artifact): every size, offset and name in them may lie. Only what
 * `actions/upload-artifact` writes is accepted — stored or deflated entries, sizes in the central
 * directory (the local headers may defer them to a data descriptor), no zip64, no encryption —
 * and anything else, or anything inconsistent, is refused with a `ZipError`. Never more than
 * `maxBytes` is inflated.
 */

type ZipProblem =
  /** Not a zip, cut short, or headers that contradict each other or the bytes. */
  | 'malformed'
  /** Valid zip, but a feature the reader refuses: zip64, several disks, encryption, a method. */
  | 'unsupported'
  /** More entries than allowed, or the entry is (or inflates to) more than `maxBytes`. */
  | 'too-large'
  /** A name that is absolute, climbs out with `..`, or holds a backslash or a control character. */
  | 'unsafe-name'
  /** Two entries with one name: which one is meant is ambiguous. */
  | 'duplicate-name'
  | 'missing'
  /** The entry's content does not match the CRC-32 the archive declares. */
  | 'crc-mismatch'

export class ZipError extends Error {
  override readonly name = 'ZipError'
  readonly problem: ZipProblem

  constructor(problem: ZipProblem, message: string, options?: ErrorOptions) {
    super(message, options)
    this.problem = problem
  }
}

export interface ZipLimits {
  /** The entry's declared and actual uncompressed size may not pass this. */
  readonly maxBytes: number
  /** The archive may hold at most this many entries (directories count). */
  readonly maxEntries: number
}

const EOCD_SIGNATURE = 0x06054b50
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50
const CENTRAL_SIGNATURE = 0x02014b50
const LOCAL_SIGNATURE = 0x04034b50
const EOCD_SIZE = 22
const ZIP64_LOCATOR_SIZE = 20
const CENTRAL_SIZE = 46
const LOCAL_SIZE = 30
const MAX_COMMENT = 0xffff
const ZIP64_EXTRA = 0x0001

const FLAG_ENCRYPTED = 0x0001
const FLAG_DATA_DESCRIPTOR = 0x0008
const FLAG_STRONG_ENCRYPTION = 0x0040
const FLAG_UTF8 = 0x0800

const STORED = 0
const DEFLATED = 8

interface CentralEntry {
  readonly name: string
  /** The name's bytes as the central directory holds them, to compare with the local header's. */
  readonly rawName: Uint8Array
  readonly flags: number
  readonly method: number
  readonly crc: number
  readonly compressedSize: number
  readonly uncompressedSize: number
  readonly localOffset: number
}

/**
 * The content of the entry named exactly `name` (a relative path with `/`, as the archive
 * stores it). Throws ZipError for anything refused; `name` itself must be a safe relative path.
 */
export function readZipEntry(archive: Uint8Array, name: string, limits: ZipLimits): Buffer {
  if (unsafeName(name) !== undefined) {
    throw new TypeError(`readZipEntry: ${quoted(name)} is not a safe relative path`)
  }
  const bytes = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength)
  const directory = endOfCentralDirectory(bytes)
  if (directory.entries > limits.maxEntries) {
    throw new ZipError(
      'too-large',
      `the zip holds ${directory.entries} entries, more than the ${limits.maxEntries} allowed`
    )
  }
  const entries = centralDirectory(bytes, directory)
  const entry = entries.find(e => e.name === name)
  if (entry === undefined) {
    const listed = entries
      .slice(0, 10)
      .map(e => quoted(e.name))
      .join(', ')
    const more = entries.length > 10 ? `, and ${entries.length - 10} more` : ''
    throw new ZipError(
      'missing',
      `the zip has no entry ${quoted(name)} (it holds ${entries.length === 0 ? 'nothing' : listed + more})`
    )
  }
  return content(bytes, entry, entries, directory.offset, limits.maxBytes)
}

interface Directory {
  readonly entries: number
  readonly size: number
  readonly offset: number
}

/**
 * The end-of-central-directory record: the one signature from which the record and its comment
 * reach exactly to the end of the archive. A comment holding a second such record is refused,
 * since another reader could take that one.
 */
function endOfCentralDirectory(bytes: Buffer): Directory {
  if (bytes.length < EOCD_SIZE) {
    throw new ZipError('malformed', `not a zip: ${bytes.length} bytes is too short to be one`)
  }
  const candidates: number[] = []
  const lowest = Math.max(0, bytes.length - EOCD_SIZE - MAX_COMMENT)
  for (let at = bytes.length - EOCD_SIZE; at >= lowest; at--) {
    if (
      bytes.readUInt32LE(at) === EOCD_SIGNATURE &&
      at + EOCD_SIZE + bytes.readUInt16LE(at + 20) === bytes.length
    ) {
      candidates.push(at)
    }
  }
  const [at, ...others] = candidates
  if (at === undefined) {
    throw new ZipError(
      'malformed',
      'not a zip, or one cut short: no end-of-central-directory record at its end'
    )
  }
  if (others.length > 0) {
    throw new ZipError(
      'malformed',
      'the zip has more than one end-of-central-directory record: which is meant is ambiguous'
    )
  }
  const disk = bytes.readUInt16LE(at + 4)
  const directoryDisk = bytes.readUInt16LE(at + 6)
  const onDisk = bytes.readUInt16LE(at + 8)
  const entries = bytes.readUInt16LE(at + 10)
  const size = bytes.readUInt32LE(at + 12)
  const offset = bytes.readUInt32LE(at + 16)
  if (
    entries === 0xffff ||
    size === 0xffffffff ||
    offset === 0xffffffff ||
    (at >= ZIP64_LOCATOR_SIZE &&
      bytes.readUInt32LE(at - ZIP64_LOCATOR_SIZE) === ZIP64_LOCATOR_SIGNATURE)
  ) {
    throw new ZipError('unsupported', 'the zip is a zip64 archive, which is not accepted')
  }
  if (disk !== 0 || directoryDisk !== 0 || onDisk !== entries) {
    throw new ZipError('unsupported', 'the zip spans several disks, which is not accepted')
  }
  if (offset + size !== at) {
    throw new ZipError(
      'malformed',
      `the zip's central directory (${size} bytes at ${offset}) does not end where its end record starts (${at})`
    )
  }
  return { entries, size, offset }
}

function centralDirectory(bytes: Buffer, directory: Directory): CentralEntry[] {
  const entries: CentralEntry[] = []
  const seen = new Set<string>()
  const end = directory.offset + directory.size
  let at = directory.offset
  for (let i = 0; i < directory.entries; i++) {
    if (at + CENTRAL_SIZE > end || bytes.readUInt32LE(at) !== CENTRAL_SIGNATURE) {
      throw new ZipError(
        'malformed',
        `the zip's central directory ends before its entry ${i + 1} of ${directory.entries}`
      )
    }
    const flags = bytes.readUInt16LE(at + 8)
    const nameLength = bytes.readUInt16LE(at + 28)
    const extraLength = bytes.readUInt16LE(at + 30)
    const commentLength = bytes.readUInt16LE(at + 32)
    const next = at + CENTRAL_SIZE + nameLength + extraLength + commentLength
    if (next > end) {
      throw new ZipError(
        'malformed',
        `the zip's central directory entry ${i + 1} runs past its end`
      )
    }
    const rawName = bytes.subarray(at + CENTRAL_SIZE, at + CENTRAL_SIZE + nameLength)
    const name = decodeName(rawName, flags)
    const entry: CentralEntry = {
      name,
      rawName,
      flags,
      method: bytes.readUInt16LE(at + 10),
      crc: bytes.readUInt32LE(at + 16),
      compressedSize: bytes.readUInt32LE(at + 20),
      uncompressedSize: bytes.readUInt32LE(at + 24),
      localOffset: bytes.readUInt32LE(at + 42)
    }
    const extra = bytes.subarray(
      at + CENTRAL_SIZE + nameLength,
      at + CENTRAL_SIZE + nameLength + extraLength
    )
    checkEntry(entry, extra, bytes.readUInt16LE(at + 34))
    if (seen.has(name)) {
      throw new ZipError(
        'duplicate-name',
        `the zip holds two entries named ${quoted(name)}: which is meant is ambiguous`
      )
    }
    seen.add(name)
    entries.push(entry)
    at = next
  }
  if (at !== end) {
    throw new ZipError(
      'malformed',
      `the zip's central directory holds more than the ${directory.entries} entries its end record counts`
    )
  }
  return entries
}

/** What every entry must be, read or not: a zip that breaks these was not written by the toolkit. */
function checkEntry(entry: CentralEntry, extra: Buffer, diskStart: number): void {
  const shown = quoted(entry.name)
  const problem = unsafeName(entry.name.endsWith('/') ? entry.name.slice(0, -1) : entry.name)
  if (problem !== undefined) {
    throw new ZipError('unsafe-name', `the zip holds an entry named ${shown}, which ${problem}`)
  }
  if (
    entry.compressedSize === 0xffffffff ||
    entry.uncompressedSize === 0xffffffff ||
    entry.localOffset === 0xffffffff ||
    diskStart === 0xffff ||
    hasExtra(extra, ZIP64_EXTRA)
  ) {
    throw new ZipError('unsupported', `the zip's entry ${shown} is zip64, which is not accepted`)
  }
  if (diskStart !== 0) {
    throw new ZipError('unsupported', `the zip's entry ${shown} is on another disk`)
  }
  if ((entry.flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION)) !== 0) {
    throw new ZipError(
      'unsupported',
      `the zip's entry ${shown} is encrypted, which is not accepted`
    )
  }
}

/** Walks the extra field's (id, size, data) records; one that runs past the end is malformed. */
function hasExtra(extra: Buffer, id: number): boolean {
  let at = 0
  let found = false
  while (at + 4 <= extra.length) {
    if (extra.readUInt16LE(at) === id) found = true
    at += 4 + extra.readUInt16LE(at + 2)
  }
  if (at !== extra.length) {
    throw new ZipError('malformed', "an entry's extra field runs past its end")
  }
  return found
}

/** UTF-8 when the entry says so (upload-artifact's names always are), else one byte a character. */
function decodeName(raw: Uint8Array, flags: number): string {
  if ((flags & FLAG_UTF8) === 0) return Buffer.from(raw).toString('latin1')
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw)
  } catch {
    throw new ZipError('malformed', 'an entry says its name is UTF-8 and it is not')
  }
}

/** Why `name` is not a plain relative path, or undefined when it is one. */
function unsafeName(name: string): string | undefined {
  if (name === '') return 'is empty'
  if (name.startsWith('/')) return 'is absolute'
  if (/^[A-Za-z]:/.test(name)) return 'names a drive'
  if (name.includes('\\')) return 'holds a backslash'
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'holds a control character'
  const segments = name.split('/')
  if (segments.includes('..')) return 'climbs out of the archive with ..'
  if (segments.some(s => s === '' || s === '.')) return 'has an empty or . segment'
  return undefined
}

function content(
  bytes: Buffer,
  entry: CentralEntry,
  entries: readonly CentralEntry[],
  directoryOffset: number,
  maxBytes: number
): Buffer {
  const shown = quoted(entry.name)
  if (entry.method !== STORED && entry.method !== DEFLATED) {
    throw new ZipError(
      'unsupported',
      `the zip's entry ${shown} uses compression method ${entry.method}; only stored (0) and deflate (8) are accepted`
    )
  }
  if (entry.uncompressedSize > maxBytes) {
    throw new ZipError(
      'too-large',
      `the zip's entry ${shown} says it holds ${entry.uncompressedSize} bytes, more than the ${maxBytes} allowed`
    )
  }
  if (entry.method === STORED && entry.compressedSize !== entry.uncompressedSize) {
    throw new ZipError(
      'malformed',
      `the zip's entry ${shown} is stored, yet says it is ${entry.compressedSize} bytes compressed and ${entry.uncompressedSize} not`
    )
  }
  const data = entryData(bytes, entry, directoryOffset)
  // Another entry starting inside this one's bytes: overlapping entries, a zip bomb's trick.
  const overlapping = entries.find(
    e => e !== entry && e.localOffset >= entry.localOffset && e.localOffset < data.end
  )
  if (overlapping !== undefined) {
    throw new ZipError(
      'malformed',
      `the zip's entries ${shown} and ${quoted(overlapping.name)} overlap`
    )
  }
  const compressed = bytes.subarray(data.start, data.end)
  const output = entry.method === STORED ? Buffer.from(compressed) : inflate(compressed, entry)
  if (output.length !== entry.uncompressedSize) {
    throw new ZipError(
      'malformed',
      `the zip's entry ${shown} says it holds ${entry.uncompressedSize} bytes and holds ${output.length}`
    )
  }
  const actual = crc32(output)
  if (actual !== entry.crc) {
    throw new ZipError(
      'crc-mismatch',
      `the zip's entry ${shown} is corrupt or altered: CRC-32 ${hex(actual)}, declared ${hex(entry.crc)}`
    )
  }
  return output
}

/** Where the entry's bytes lie, after its local header, checked against the central directory. */
function entryData(
  bytes: Buffer,
  entry: CentralEntry,
  directoryOffset: number
): { readonly start: number; readonly end: number } {
  const shown = quoted(entry.name)
  const at = entry.localOffset
  if (at + LOCAL_SIZE > directoryOffset || bytes.readUInt32LE(at) !== LOCAL_SIGNATURE) {
    throw new ZipError('malformed', `the zip's entry ${shown} has no local header where it says`)
  }
  const flags = bytes.readUInt16LE(at + 6)
  const method = bytes.readUInt16LE(at + 8)
  const nameLength = bytes.readUInt16LE(at + 26)
  const extraLength = bytes.readUInt16LE(at + 28)
  const start = at + LOCAL_SIZE + nameLength + extraLength
  const end = start + entry.compressedSize
  if (end > directoryOffset) {
    throw new ZipError('malformed', `the zip's entry ${shown} runs into its central directory`)
  }
  const localName = bytes.subarray(at + LOCAL_SIZE, at + LOCAL_SIZE + nameLength)
  if (!Buffer.from(entry.rawName).equals(localName)) {
    throw new ZipError(
      'malformed',
      `the zip's entry ${shown} is named ${quoted(decodeName(localName, flags))} in its local header`
    )
  }
  if (hasExtra(bytes.subarray(at + LOCAL_SIZE + nameLength, start), ZIP64_EXTRA)) {
    throw new ZipError('unsupported', `the zip's entry ${shown} is zip64, which is not accepted`)
  }
  const sameFlags = ((flags ^ entry.flags) & (FLAG_ENCRYPTED | FLAG_DATA_DESCRIPTOR)) === 0
  if (method !== entry.method || !sameFlags) {
    throw new ZipError(
      'malformed',
      `the zip's entry ${shown} has a local header that contradicts its central directory entry`
    )
  }
  // With a data descriptor the local header's CRC and sizes may be zero; else they must agree.
  if ((flags & FLAG_DATA_DESCRIPTOR) === 0) {
    const crc = bytes.readUInt32LE(at + 14)
    const compressedSize = bytes.readUInt32LE(at + 18)
    const uncompressedSize = bytes.readUInt32LE(at + 22)
    if (
      crc !== entry.crc ||
      compressedSize !== entry.compressedSize ||
      uncompressedSize !== entry.uncompressedSize
    ) {
      throw new ZipError(
        'malformed',
        `the zip's entry ${shown} has a local header whose CRC or sizes contradict its central directory entry`
      )
    }
  }
  return { start, end }
}

/** What `inflateRawSync` returns with `info: true`, which @types/node does not describe. */
interface InflateInfo {
  readonly buffer: Buffer
  readonly engine: { readonly bytesWritten: number }
}

/**
 * At most the declared size is inflated: more than that is a lie, found without holding it. The
 * deflate stream must end exactly where the entry's bytes do.
 */
function inflate(compressed: Buffer, entry: CentralEntry): Buffer {
  const shown = quoted(entry.name)
  let inflated: InflateInfo
  try {
    // maxOutputLength must be at least 1; an empty entry inflates to nothing either way.
    inflated = inflateRawSync(compressed, {
      maxOutputLength: Math.max(1, entry.uncompressedSize),
      info: true
    }) as unknown as InflateInfo
  } catch (error) {
    if (isCode(error, 'ERR_BUFFER_TOO_LARGE')) {
      throw new ZipError(
        'too-large',
        `the zip's entry ${shown} inflates to more than the ${entry.uncompressedSize} bytes it declares`,
        { cause: error }
      )
    }
    throw new ZipError(
      'malformed',
      `the zip's entry ${shown} is not valid deflate data (${error instanceof Error ? error.message : String(error)})`,
      { cause: error }
    )
  }
  if (inflated.engine.bytesWritten !== compressed.length) {
    throw new ZipError(
      'malformed',
      `the zip's entry ${shown} has ${compressed.length - inflated.engine.bytesWritten} bytes after its deflate stream ends`
    )
  }
  return inflated.buffer
}

/** A name from the archive, for a message: quoted, invisible characters escaped, cut at 200. */
function quoted(name: string): string {
  const cut = name.length > 200 ? `${name.slice(0, 200)}…` : name
  return JSON.stringify(cut).replace(
    /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu,
    c => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`
  )
}

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code
}

function hex(value: number): string {
  return value.toString(16).padStart(8, '0')
}
