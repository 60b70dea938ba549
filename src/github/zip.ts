import { crc32, inflateRawSync } from 'node:zlib'
import {
  centralDirectory,
  decodeName,
  DEFLATED,
  endOfCentralDirectory,
  FLAG_DATA_DESCRIPTOR,
  FLAG_ENCRYPTED,
  hasExtra,
  LOCAL_SIGNATURE,
  LOCAL_SIZE,
  STORED,
  unsafeName,
  ZIP64_EXTRA,
  type CentralEntry
} from './zip-directory.js'
import { hex, quoted, ZipError } from './zip-error.js'

/**
 * One file out of a zip archive, read entirely in memory, for archives a job that ran untrusted
 * code produced (a workflow artifact): every size, offset and name in them may lie. Only what
 * `actions/upload-artifact` writes is accepted — stored or deflated entries, sizes in the central
 * directory (the local headers may defer them to a data descriptor), no zip64, no encryption —
 * and anything else, or anything inconsistent, is refused with a `ZipError`. Never more than
 * `maxBytes` is inflated.
 */

export interface ZipLimits {
  /** The entry's declared and actual uncompressed size may not pass this. */
  readonly maxBytes: number
  /** The archive may hold at most this many entries (directories count). */
  readonly maxEntries: number
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

function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code
}
