import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ZipError } from '../../src/github/zip-error.js'
import { readZipEntry } from '../../src/github/zip.js'
import { zip } from '../helpers/zip.js'

const LIMITS = { maxBytes: 64 * 1024, maxEntries: 100 }
const RESULTS = '{"gates":[{"name":"tests","exitCode":0},{"name":"lint","exitCode":1}]}'

function refusal(archive: Uint8Array, name = 'gates.json', limits = LIMITS): ZipError {
  try {
    readZipEntry(archive, name, limits)
  } catch (error) {
    if (error instanceof ZipError) return error
    throw error
  }
  throw new Error('the entry was read')
}

describe('readZipEntry', () => {
  it('reads empty entries, stored and deflated, and a directory beside them', () => {
    const archive = zip([
      { name: 'logs/', data: '', method: 'store' },
      { name: 'empty-stored', data: '', method: 'store' },
      { name: 'empty-deflated', data: '' },
      { name: 'gates.json', data: RESULTS, dataDescriptor: true }
    ])

    expect(readZipEntry(archive, 'empty-stored', LIMITS)).toEqual(Buffer.alloc(0))
    expect(readZipEntry(archive, 'empty-deflated', LIMITS)).toEqual(Buffer.alloc(0))
    expect(readZipEntry(archive, 'gates.json', LIMITS).toString()).toBe(RESULTS)
  })

  it('takes an entry of exactly maxBytes and refuses one byte more', () => {
    const archive = zip([{ name: 'gates.json', data: 'x'.repeat(1000) }])

    expect(readZipEntry(archive, 'gates.json', { ...LIMITS, maxBytes: 1000 })).toHaveLength(1000)
    expect(refusal(archive, 'gates.json', { ...LIMITS, maxBytes: 999 }).message).toBe(
      `the zip's entry "gates.json" says it holds 1000 bytes, more than the 999 allowed`
    )
  })

  it('reads names without the UTF-8 flag one byte a character, and refuses bad UTF-8', () => {
    const latin1 = zip([{ name: Buffer.from('caf\xe9.txt', 'latin1'), data: 'x', method: 'store' }])
    expect(readZipEntry(latin1, 'café.txt', LIMITS).toString()).toBe('x')

    const flagged = zip([
      { name: Buffer.from([0x67, 0xff]), data: 'x', method: 'store', lie: { flags: 0x0800 } }
    ])
    expect(refusal(flagged)).toMatchObject({
      problem: 'malformed',
      message: 'an entry says its name is UTF-8 and it is not'
    })
  })

  it.each([
    ['./gates.json', 'has an empty or . segment'],
    ['logs//gates.json', 'has an empty or . segment'],
    ['C:gates.json', 'names a drive'],
    ['gates\n.json', 'holds a control character'],
    ['logs/../../gates.json', 'climbs out of the archive with ..']
  ])('refuses an archive holding the entry %j', (name, why) => {
    const error = refusal(
      zip([
        { name: 'gates.json', data: '{}' },
        { name, data: 'x' }
      ])
    )

    expect(error).toMatchObject({ problem: 'unsafe-name' })
    expect(error.message).toBe(`the zip holds an entry named ${JSON.stringify(name)}, which ${why}`)
  })

  it('refuses an extra field that runs past its end', () => {
    const error = refusal(
      zip([{ name: 'gates.json', data: '{}', extra: Buffer.from([9, 9, 40, 0]) }])
    )

    expect(error).toMatchObject({ problem: 'malformed' })
    expect(error.message).toBe("an entry's extra field runs past its end")
  })

  it('refuses an entry whose local header is not where the directory says', () => {
    const error = refusal(zip([{ name: 'gates.json', data: '{}', lie: { localOffset: 3 } }]))

    expect(error.message).toBe(`the zip's entry "gates.json" has no local header where it says`)
  })

  it('refuses a zip64 extra field in the local header alone', () => {
    const zip64 = Buffer.from([1, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0])
    const error = refusal(zip([{ name: 'gates.json', data: '{}', localExtra: zip64 }]))

    expect(error).toMatchObject({ problem: 'unsupported' })
    expect(error.message).toBe(`the zip's entry "gates.json" is zip64, which is not accepted`)
  })

  it('quotes names in messages with invisible characters escaped, long ones cut', () => {
    const archive = zip([
      { name: 'gates\u202e\u0085nosj.json', data: '{}' },
      { name: 'x'.repeat(300), data: '{}' }
    ])

    expect(refusal(archive).message).toBe(
      `the zip has no entry "gates.json" (it holds "gates\\u202e\\u0085nosj.json", "${'x'.repeat(200)}…")`
    )
  })

  it('is asked only for safe names', () => {
    expect(() => readZipEntry(zip([]), '../gates.json', LIMITS)).toThrow(TypeError)
  })

  it('refuses every prefix of an archive with a ZipError, never anything else', () => {
    const archive = zip([
      { name: 'logs/tests.txt', data: 'ok\n'.repeat(50) },
      { name: 'gates.json', data: RESULTS, dataDescriptor: true }
    ])
    for (let length = 0; length < archive.length; length++) {
      expect(refusal(archive.subarray(0, length))).toBeInstanceOf(ZipError)
    }
  })

  it('either reads the very bytes written or refuses with a ZipError, whatever bytes change', () => {
    const archive = zip([
      { name: 'notes.txt', data: 'stored', method: 'store' },
      { name: 'gates.json', data: RESULTS, dataDescriptor: true }
    ])
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            at: fc.nat({ max: archive.length - 1 }),
            value: fc.integer({ min: 0, max: 255 })
          }),
          { minLength: 1, maxLength: 4 }
        ),
        changes => {
          const changed = Buffer.from(archive)
          for (const { at, value } of changes) changed[at] = value
          let read: Buffer
          try {
            read = readZipEntry(changed, 'gates.json', LIMITS)
          } catch (error) {
            return error instanceof ZipError
          }
          return read.toString() === RESULTS
        }
      ),
      { numRuns: 3000 }
    )
  })
})
