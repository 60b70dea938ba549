/**
 * The longest start of `text` whose UTF-8 encoding is at most `max` bytes, in whole characters:
 * for the limits GitHub counts in bytes whatever its docs call them (a check run's summary: "summary
 * exceeds a maximum bytesize of 65535").
 */
export function utf8Head(text: string, max: number): string {
  if (Buffer.byteLength(text, 'utf8') <= max) return text
  let bytes = 0
  let end = 0
  for (const char of text) {
    bytes += Buffer.byteLength(char, 'utf8')
    if (bytes > max) break
    end += char.length
  }
  return text.slice(0, end)
}
