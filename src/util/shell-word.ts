/**
 * `word` as one word of a POSIX shell: as it is when it holds only characters no shell treats
 * specially, else in single quotes (a quote inside closed, escaped and reopened). A line copied
 * from the terminal then runs the program named, with no part of its path run as a command.
 */
export function shellWord(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}
