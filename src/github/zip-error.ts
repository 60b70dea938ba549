/** Why a zip archive was refused, and how its names and numbers are quoted in the message. */

export type ZipProblem =
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

/** A name from the archive, for a message: quoted, invisible characters escaped, cut at 200. */
export function quoted(name: string): string {
  const cut = name.length > 200 ? `${name.slice(0, 200)}…` : name
  return JSON.stringify(cut).replace(
    /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu,
    c => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`
  )
}

export function hex(value: number): string {
  return value.toString(16).padStart(8, '0')
}
