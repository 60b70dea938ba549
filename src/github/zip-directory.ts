import { quoted, ZipError } from './zip-error.js'
/**
 * A zip's directory: the end record, the central directory's entries and their names, each
 * checked against the archive's bytes (see `zip.ts` for what is accepted).
 */

const EOCD_SIGNATURE = 0x06054b50
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50
const CENTRAL_SIGNATURE = 0x02014b50
export const LOCAL_SIGNATURE = 0x04034b50
const EOCD_SIZE = 22
const ZIP64_LOCATOR_SIZE = 20
const CENTRAL_SIZE = 46
export const LOCAL_SIZE = 30
const MAX_COMMENT = 0xffff
export const ZIP64_EXTRA = 0x0001

export const FLAG_ENCRYPTED = 0x0001
export const FLAG_DATA_DESCRIPTOR = 0x0008
const FLAG_STRONG_ENCRYPTION = 0x0040
const FLAG_UTF8 = 0x0800

export const STORED = 0
export const DEFLATED = 8

export interface CentralEntry {
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
export function endOfCentralDirectory(bytes: Buffer): Directory {
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

export function centralDirectory(bytes: Buffer, directory: Directory): CentralEntry[] {
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
export function hasExtra(extra: Buffer, id: number): boolean {
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
export function decodeName(raw: Uint8Array, flags: number): string {
  if ((flags & FLAG_UTF8) === 0) return Buffer.from(raw).toString('latin1')
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(raw)
  } catch {
    throw new ZipError('malformed', 'an entry says its name is UTF-8 and it is not')
  }
}

/** Why `name` is not a plain relative path, or undefined when it is one. */
export function unsafeName(name: string): string | undefined {
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
