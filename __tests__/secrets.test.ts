import { describe, expect, it } from 'vitest'
import { PROVIDER_TABLE, providerVariables } from '../src/council/providers/index.js'
import { gateEnvironment, RUNNER_SERVICE_VARIABLES } from '../src/gates/environment.js'
import { maskSecrets, SECRET_NAME, secretValues } from '../src/util/secrets.js'

describe('secretValues', () => {
  it('takes the values of credential-like names, whatever their case', () => {
    const values = secretValues({
      GITHUB_TOKEN: 'ghs_aaaaaaaaaaaa',
      'INPUT_GITHUB-TOKEN': 'ghs_bbbbbbbbbbbb',
      MY_SECRET: 'secret-value-1',
      db_password: 'password-value',
      LDAP_PASSWD: 'passwd-value',
      OPENAI_API_KEY: 'sk-openai-value',
      STRIPE_APIKEY: 'sk-stripe-value',
      SSH_PRIVATE_KEY: 'private-key-value',
      GCP_CREDENTIALS: 'credentials-value',
      PATH: '/usr/local/bin:/usr/bin',
      HOME: '/home/runner-user',
      KEYBOARD: 'not-a-secret-at-all'
    })
    expect(values.sort()).toEqual(
      [
        'ghs_aaaaaaaaaaaa',
        'ghs_bbbbbbbbbbbb',
        'secret-value-1',
        'password-value',
        'passwd-value',
        'sk-openai-value',
        'sk-stripe-value',
        'private-key-value',
        'credentials-value'
      ].sort()
    )
  })

  it('ignores values shorter than 8 characters and undefined values', () => {
    expect(
      secretValues({
        A_TOKEN: 'short',
        B_TOKEN: '1234567',
        C_TOKEN: '12345678',
        D_TOKEN: undefined
      })
    ).toEqual(['12345678'])
  })

  it('deduplicates and puts the longest first', () => {
    expect(
      secretValues({
        A_TOKEN: 'abcdefgh',
        B_SECRET: 'abcdefgh-longer',
        C_PASSWORD: 'abcdefgh',
        D_API_KEY: 'abcdefghij'
      })
    ).toEqual(['abcdefgh-longer', 'abcdefghij', 'abcdefgh'])
  })
})

describe('credentials inside a URL', () => {
  it('masks the user:password of any URL in the environment, and the password alone', () => {
    const env = {
      OPENAI_COMPATIBLE_BASE_URL: 'https://judge:s3cr3t-pass-word@llm.internal.example/v1',
      HTTPS_PROXY: 'http://proxy-user:pr0xy-pass-9@proxy:3128'
    }
    const secrets = secretValues(env)
    const shown = maskSecrets(
      'fetch failed: Request cannot be constructed from a URL that includes credentials: https://judge:s3cr3t-pass-word@llm.internal.example/v1/chat/completions; proxy pr0xy-pass-9',
      secrets
    )
    expect(shown).not.toContain('s3cr3t-pass-word')
    expect(shown).not.toContain('pr0xy-pass-9')
    expect(shown).toContain('https://***@llm.internal.example/v1/chat/completions')
  })

  it('leaves URLs without credentials, and e-mail addresses, alone', () => {
    expect(
      secretValues({ OPENAI_BASE_URL: 'https://api.example.com/v1', AUTHOR: 'octo@example.com' })
    ).toEqual([])
  })
})

describe('maskSecrets', () => {
  it('replaces every occurrence with ***', () => {
    expect(maskSecrets('a s3cr3t-value b s3cr3t-value', ['s3cr3t-value'])).toBe('a *** b ***')
  })

  it('treats secrets as plain text, not as patterns', () => {
    expect(maskSecrets('x a.b*c$1 y aXbbc', ['a.b*c$1'])).toBe('x *** y aXbbc')
  })

  it('masks a secret containing another whole, given longest first', () => {
    const secrets = secretValues({ A_TOKEN: 'abcdefgh', B_TOKEN: 'abcdefgh-longer' })
    expect(maskSecrets('abcdefgh-longer', secrets)).toBe('***')
  })

  it('leaves text alone without secrets and ignores empty ones', () => {
    expect(maskSecrets('plain text', [])).toBe('plain text')
    expect(maskSecrets('plain text', [''])).toBe('plain text')
  })
})

describe('gateEnvironment', () => {
  const env = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/runner',
    MY_VAR: 'kept',
    NPM_TOKEN: 'npm_own',
    GH_TOKEN: 'gho_cli',
    GOOGLE_API_KEY: 'google-key',
    GEMINI_API_KEY: 'gemini-key',
    AZURE_OPENAI_API_KEY: 'azure-key',
    AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
    AWS_SECRET_ACCESS_KEY: 'aws-secret',
    AWS_SESSION_TOKEN: 'aws-session',
    GPG_PASSPHRASE: 'gpg',
    OLLAMA_API_KEY: 'ollama-key',
    OLLAMA_BASE_URL: 'http://models.internal:11434',
    OPENAI_BASE_URL: 'https://proxy.internal/v1',
    GITHUB_OUTPUT: '/home/runner/_temp/_runner_file_commands/set_output',
    GITHUB_REPOSITORY: 'owner/repo',
    'INPUT_GITHUB-TOKEN': 'ghs_input',
    INPUT_OPENAI_API_KEY: 'sk-input',
    INPUT_RUBRIC: '.github/rubric.md',
    GITHUB_TOKEN: 'ghs_env',
    ACTIONS_RUNTIME_TOKEN: 'runtime',
    ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'oidc',
    ACTIONS_ID_TOKEN_REQUEST_URL: 'https://oidc.test',
    OPENAI_API_KEY: 'sk-openai',
    ANTHROPIC_API_KEY: 'sk-ant',
    GOOGLE_GENERATIVE_AI_API_KEY: 'google',
    OPENROUTER_API_KEY: 'openrouter',
    OPENAI_COMPATIBLE_API_KEY: 'compatible',
    UNSET: undefined
  }

  it('keeps only what is not a credential, an input, a provider setting or a file command', () => {
    // Every credential-like name goes, the user's own too (NPM_TOKEN, GH_TOKEN, cloud keys): the
    // gates run the pull request's code. A gate that needs one must get it some other way.
    expect(gateEnvironment(env, providerVariables())).toEqual({
      PATH: '/usr/bin:/bin',
      HOME: '/home/runner',
      MY_VAR: 'kept',
      GITHUB_REPOSITORY: 'owner/repo'
    })
  })

  it('withholds every variable the provider table names, keys and base URLs', () => {
    const everyProvider = Object.fromEntries(
      Object.values(PROVIDER_TABLE).flatMap(({ variables }) =>
        [variables.key, variables.baseUrl].map(name => [name, 'set'])
      )
    )
    expect(Object.keys(everyProvider).length).toBeGreaterThanOrEqual(12)
    expect(gateEnvironment({ ...everyProvider, PATH: '/bin' }, providerVariables())).toEqual({
      PATH: '/bin'
    })
  })

  it('withholds every one of the runner’s service variables, named in one list', () => {
    const runner = Object.fromEntries(RUNNER_SERVICE_VARIABLES.map(name => [name, 'set']))
    expect(RUNNER_SERVICE_VARIABLES).toEqual(
      expect.arrayContaining([
        'ACTIONS_RUNTIME_TOKEN',
        'ACTIONS_RESULTS_URL',
        'ACTIONS_CACHE_URL',
        'ACTIONS_RUNTIME_URL',
        'ACTIONS_ID_TOKEN_REQUEST_URL',
        'ACTIONS_ID_TOKEN_REQUEST_TOKEN'
      ])
    )
    expect(
      gateEnvironment({ ...runner, ACTIONS_STEP_DEBUG: 'true', PATH: '/bin' }, providerVariables())
    ).toEqual({
      // The user's own debug switch is no credential.
      ACTIONS_STEP_DEBUG: 'true',
      PATH: '/bin'
    })
  })

  it('masks every provider key: each key variable has a credential-like name', () => {
    for (const { variables } of Object.values(PROVIDER_TABLE)) {
      expect(SECRET_NAME.test(variables.key), variables.key).toBe(true)
    }
  })
})
