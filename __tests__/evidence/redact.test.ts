import { describe, expect, it } from 'vitest'
import { redactPatch, secretKinds } from '../../src/evidence/redact.js'
import { newFile } from './patch-text.js'

// Built by concatenation so this file holds no complete secret-looking literal.
const SECRETS: readonly { kind: string; line: string; value: string }[] = [
  {
    kind: 'private key',
    line: '-----BEGIN RSA ' + 'PRIVATE KEY-----',
    value: 'MIIEowIBAAKCAQEAzVeryPrivateBodyLine'
  },
  {
    kind: 'private key',
    line: '-----BEGIN OPENSSH ' + 'PRIVATE KEY-----',
    value: 'b3BlbnNzaC1rZXktdjEAAAAABG5vbmU'
  },
  { kind: 'AWS access key', line: '', value: 'AKIA' + 'IOSFODNN7EXAMPLE' },
  { kind: 'AWS access key', line: '', value: 'ASIA' + 'Y34FZKBOKMUTVV7A' },
  { kind: 'GitHub token', line: '', value: 'ghp_' + 'a'.repeat(20) + '1234567890ABCDEF' },
  { kind: 'GitHub token', line: '', value: 'ghs_' + 'Z9'.repeat(18) },
  { kind: 'GitHub token', line: '', value: 'github_pat_' + '11ABCDEFG0' + '_x'.repeat(20) },
  { kind: 'OpenAI API key', line: '', value: 'sk-' + 'abc123DEF456ghi789JKL0mno' },
  { kind: 'OpenAI API key', line: '', value: 'sk-proj-' + 'Ab3_cD4-eF5gH6iJ7kL8mN9' },
  { kind: 'Anthropic API key', line: '', value: 'sk-ant-' + 'api03-Abc123Def456Ghi789Jkl' },
  { kind: 'Slack token', line: '', value: 'xoxb-' + '123456789012-abcdefABCDEF' },
  { kind: 'Google API key', line: '', value: 'AIza' + 'SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q' },
  { kind: 'Stripe key', line: '', value: 'sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc' },
  { kind: 'Stripe key', line: '', value: 'rk_live_' + '4eC39HqLyjWDarjtT1zdp7dc' },
  {
    kind: 'JWT',
    line: '',
    value:
      'eyJhbGciOiJIUzI1NiJ9' +
      '.eyJzdWIiOiIxMjM0NTY3ODkwIn0' +
      '.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'
  },
  { kind: 'password or secret assignment', line: 'const password = "', value: 'hunter2hunter2' },
  { kind: 'password or secret assignment', line: "DB_PASSWD: '", value: 'c0rrect-h0rse' },
  { kind: 'password or secret assignment', line: '"api_key": "', value: 'live-1234567890' },
  { kind: 'password or secret assignment', line: "SECRET_KEY = '", value: 'django-insecure-x9' },
  { kind: 'password or secret assignment', line: 'private_key := `', value: 'abcdefgh12345678' },
  { kind: 'password or secret assignment', line: "'token' => '", value: 'tok-9f8e7d6c5b' }
]

describe('redactPatch', () => {
  it.each(SECRETS)(
    'catches a $kind and leaves none of it in the output',
    ({ kind, line, value }) => {
      const closing = line.endsWith('"')
        ? '"'
        : line.endsWith("'")
          ? "'"
          : line.endsWith('`')
            ? '`'
            : ''
      const secretLine = line.startsWith('-----') ? line : `${line}${value}${closing}`
      const patch = newFile('src/config.ts', [
        'import x from "y"',
        secretLine,
        line.startsWith('-----') ? value : 'done()'
      ])
      const result = redactPatch(patch)
      expect(result.hunks).toBe(1)
      expect(result.kinds).toContain(kind)
      expect(result.patch).not.toContain(value)
      expect(result.patch).toContain(
        `@@ -0,0 +1,3 @@\n[hunk redacted by rubric-council: it looks like it contains a secret (`
      )
      // The file header survives: the judges still see which file it was.
      expect(result.patch.startsWith('diff --git a/src/config.ts b/src/config.ts\n')).toBe(true)
      expect(result.patch.endsWith(')]\n')).toBe(true)
    }
  )

  it.each([
    'const tokenizer = new Tokenizer()',
    'password: string',
    'interface Login { password: string; token?: string }',
    "const secret = process.env.SECRET ?? ''",
    'password = "${DB_PASSWORD}"',
    "token: '{{ secrets.TOKEN }}'",
    'password: "********"',
    'api_key = get_key()',
    'const maxTokens = "60000000"',
    'pip install sk-learn-contrib-project-template',
    'aws_access_key_id = AKIAEXAMPLE',
    'const ghp = "ghp_short"',
    'const secretary = "Jane Doe-Smith"'
  ])('leaves ordinary code alone: %s', line => {
    const patch = newFile('src/config.ts', ['before', line, 'after'])
    expect(redactPatch(patch)).toEqual({ patch, hunks: 0, kinds: [] })
  })

  it('redacts only the hunks with secrets, scanning removed and context lines too', () => {
    const key = 'AKIA' + 'ABCDEFGHIJKLMNOP'
    const patch = [
      'diff --git a/app.py b/app.py',
      'index 1111111..2222222 100644',
      '--- a/app.py',
      '+++ b/app.py',
      '@@ -1,3 +1,3 @@ def clean():',
      ' a = 1',
      '-b = 2',
      '+b = 3',
      ' c = 4',
      '@@ -10,3 +10,2 @@ def leaky():',
      ` stays = "${key}"`,
      `-removed = "${'sk_live_' + 'abcdefghijklmnop1234'}"`,
      ' end = 1',
      '@@ -20,2 +19,2 @@',
      '-x = 1',
      '+x = 2',
      ''
    ].join('\n')
    const result = redactPatch(patch)
    expect(result.hunks).toBe(1)
    expect(result.kinds).toEqual(['AWS access key', 'Stripe key'])
    expect(result.patch).toBe(
      [
        'diff --git a/app.py b/app.py',
        'index 1111111..2222222 100644',
        '--- a/app.py',
        '+++ b/app.py',
        '@@ -1,3 +1,3 @@ def clean():',
        ' a = 1',
        '-b = 2',
        '+b = 3',
        ' c = 4',
        '@@ -10,3 +10,2 @@',
        '[hunk redacted by rubric-council: it looks like it contains a secret (AWS access key, Stripe key)]',
        '@@ -20,2 +19,2 @@',
        '-x = 1',
        '+x = 2',
        ''
      ].join('\n')
    )
  })

  it('drops the old line shown after a hunk header when it holds the secret', () => {
    const key = 'AKIA' + 'QQQQQQQQQQQQQQQQ'
    const patch = `diff --git a/a b/a\n--- a/a\n+++ b/a\n@@ -5,1 +5,1 @@ KEY = "${key}"\n-x\n+y\n`
    const result = redactPatch(patch)
    expect(result.patch).not.toContain(key)
    expect(result.patch).toContain('@@ -5,1 +5,1 @@\n[hunk redacted')
  })

  it('leaves a patch without hunks (rename, mode change) as it is', () => {
    const patch = 'diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n'
    expect(redactPatch(patch)).toEqual({ patch, hunks: 0, kinds: [] })
  })

  it('secretKinds lists each kind once, in a fixed order', () => {
    const text = `${'AKIA' + 'ABCDEFGHIJKLMNOP'} ${'AKIA' + 'ABCDEFGHIJKLMNOQ'} password="abcdefgh1"`
    expect(secretKinds(text)).toEqual(['AWS access key', 'password or secret assignment'])
  })
})
