/**
 * A small zip writer for tests: well-formed archives, as `actions/upload-artifact` writes them
 * (deflated, sizes in a data descriptor), and malformed ones — every size, CRC, name, flag and
 * offset can be made to lie, in the central directory, the local header or both.
 */
import { constants, crc32, deflateRawSync } from 'node:zlib'

export interface ZipEntry {
  /** A string is written as UTF-8 (flag bit 11 set); bytes as they are. */
  readonly name: string | Uint8Array
  readonly data?: string | Uint8Array
  /** 'deflate' by default. */
  readonly method?: 'store' | 'deflate'
  /** The compressed bytes as written, instead of `data` compressed by `method`. */
  readonly raw?: Uint8Array
  /**
   * Sizes and CRC after the data, in a data descriptor, the local header's left zero (flag bit
   * 3), as upload-artifact's zip library writes them.
   */
  readonly dataDescriptor?: boolean
  /** Overrides for both headers. */
  readonly lie?: Lie
  /** Overrides for the local header only. */
  readonly localLie?: Lie & { readonly name?: string }
  /** The extra field of both headers. */
  readonly extra?: Uint8Array
  /** The local header's extra field, when it differs. */
  readonly localExtra?: Uint8Array
}

export interface Lie {
  readonly crc?: number
  readonly compressedSize?: number
  readonly uncompressedSize?: number
  /** A compression method's number (12 is bzip2), in place of `method`'s. */
  readonly methodId?: number
  /** Added to the general purpose flags: 1 is encryption, 0x40 strong encryption. */
  readonly flags?: number
  readonly localOffset?: number
  readonly diskStart?: number
}

export interface ZipOptions {
  readonly comment?: string | Uint8Array
  /** Overrides for the end-of-central-directory record. */
  readonly end?: {
    readonly entries?: number
    readonly entriesOnDisk?: number
    readonly directorySize?: number
    readonly directoryOffset?: number
    readonly disk?: number
  }
  /** A zip64 end-of-central-directory locator just before the end record. */
  readonly zip64Locator?: boolean
}

/** The archive's bytes. */
export function zip(entries: readonly ZipEntry[], options: ZipOptions = {}): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  for (const entry of entries) {
    const name = bytesOf(entry.name)
    const data = bytesOf(entry.data ?? '')
    const method = entry.method ?? 'deflate'
    const compressed = entry.raw ?? (method === 'store' ? data : deflateRawSync(data))
    const utf8 = typeof entry.name === 'string' ? 0x0800 : 0
    const descriptor = entry.dataDescriptor === true ? 0x0008 : 0
    const truth = {
      crc: crc32(data),
      compressedSize: compressed.length,
      uncompressedSize: data.length,
      methodId: method === 'store' ? 0 : 8,
      flags: 0,
      localOffset: offset,
      diskStart: 0
    }
    const central = { ...truth, ...entry.lie }
    const local = { ...central, ...entry.localLie }
    const localName = entry.localLie?.name === undefined ? name : bytesOf(entry.localLie.name)
    const extra = entry.extra ?? new Uint8Array(0)
    const localExtra = entry.localExtra ?? extra
    const flags = (lied: number): number => utf8 | descriptor | lied

    const header = Buffer.alloc(30)
    header.writeUInt32LE(0x04034b50, 0)
    header.writeUInt16LE(20, 4)
    header.writeUInt16LE(flags(local.flags), 6)
    header.writeUInt16LE(local.methodId, 8)
    header.writeUInt32LE(DOS_TIME, 10)
    header.writeUInt32LE(descriptor === 0 ? local.crc >>> 0 : 0, 14)
    header.writeUInt32LE(descriptor === 0 ? local.compressedSize >>> 0 : 0, 18)
    header.writeUInt32LE(descriptor === 0 ? local.uncompressedSize >>> 0 : 0, 22)
    header.writeUInt16LE(localName.length, 26)
    header.writeUInt16LE(localExtra.length, 28)
    const parts = [header, localName, localExtra, compressed]
    if (descriptor !== 0) {
      const trailer = Buffer.alloc(16)
      trailer.writeUInt32LE(0x08074b50, 0)
      trailer.writeUInt32LE(local.crc >>> 0, 4)
      trailer.writeUInt32LE(local.compressedSize >>> 0, 8)
      trailer.writeUInt32LE(local.uncompressedSize >>> 0, 12)
      parts.push(trailer)
    }
    const written = Buffer.concat(parts)
    locals.push(written)
    offset += written.length

    const record = Buffer.alloc(46)
    record.writeUInt32LE(0x02014b50, 0)
    record.writeUInt16LE(0x032d, 4) // made by Unix, version 4.5, as archiver writes
    record.writeUInt16LE(20, 6)
    record.writeUInt16LE(flags(central.flags), 8)
    record.writeUInt16LE(central.methodId, 10)
    record.writeUInt32LE(DOS_TIME, 12)
    record.writeUInt32LE(central.crc >>> 0, 16)
    record.writeUInt32LE(central.compressedSize >>> 0, 20)
    record.writeUInt32LE(central.uncompressedSize >>> 0, 24)
    record.writeUInt16LE(name.length, 28)
    record.writeUInt16LE(extra.length, 30)
    record.writeUInt16LE(0, 32)
    record.writeUInt16LE(central.diskStart, 34)
    record.writeUInt16LE(0, 36)
    record.writeUInt32LE(0o100644 * 0x10000, 38)
    record.writeUInt32LE(central.localOffset >>> 0, 42)
    centrals.push(Buffer.concat([record, name, extra]))
  }
  const directory = Buffer.concat(centrals)
  const comment = bytesOf(options.comment ?? '')
  const end = Buffer.alloc(22)
  end.writeUInt32LE(0x06054b50, 0)
  end.writeUInt16LE(options.end?.disk ?? 0, 4)
  end.writeUInt16LE(0, 6)
  end.writeUInt16LE(options.end?.entriesOnDisk ?? options.end?.entries ?? entries.length, 8)
  end.writeUInt16LE(options.end?.entries ?? entries.length, 10)
  end.writeUInt32LE(options.end?.directorySize ?? directory.length, 12)
  end.writeUInt32LE(options.end?.directoryOffset ?? offset, 16)
  end.writeUInt16LE(comment.length, 20)
  const locator = Buffer.alloc(options.zip64Locator === true ? 20 : 0)
  if (options.zip64Locator === true) {
    locator.writeUInt32LE(0x07064b50, 0)
    locator.writeUInt32LE(1, 16)
  }
  return Buffer.concat([...locals, directory, locator, end, comment])
}

/** 2024-01-01 00:00:00 in MS-DOS form: time in the low half, date in the high. */
const DOS_TIME = (((2024 - 1980) << 9) | (1 << 5) | 1) * 0x10000

function bytesOf(value: string | Uint8Array): Buffer {
  return typeof value === 'string' ? Buffer.from(value, 'utf8') : Buffer.from(value)
}

/**
 * A raw deflate stream of `size` zero bytes, built from one compressed mebibyte repeated, so a
 * gibibyte costs about a megabyte to hold: a zip bomb's payload. `size` is a multiple of 1 MiB.
 */
export function zeroBomb(size: number): Buffer {
  const chunk = 1024 * 1024
  // A sync flush ends each block on a byte boundary, not final: copies concatenate into one stream.
  const block = deflateRawSync(Buffer.alloc(chunk), { finishFlush: constants.Z_SYNC_FLUSH })
  const final = deflateRawSync(Buffer.alloc(0))
  return Buffer.concat([...Array.from({ length: size / chunk }, () => block), final])
}
