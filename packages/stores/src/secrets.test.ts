import { describe, expect, it } from 'vitest';
import { scrubLabelled, scrubSecrets } from './secrets.js';

describe('scrubSecrets', () => {
  it('replaces each kind of secret by its marker and counts them, keeping the rest of the text', () => {
    const cases: [string, string, string][] = [
      ['key AKIAIOSFODNN7EXAMPLE here', 'aws_access_key', 'key [REDACTED:aws_access_key] here'],
      ['aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'aws_secret_key', 'aws_secret_access_key = [REDACTED:aws_secret_key]'],
      ['Authorization: Bearer abc.def-ghi_jkl123', 'bearer_token', 'Authorization: Bearer [REDACTED:bearer_token]'],
      ['use ghp_0123456789abcdefghijABCDEFGHIJ012345 now', 'github_token', 'use [REDACTED:github_token] now'],
      ['openai sk-proj-abcdefghijklmnop1234', 'api_key', 'openai [REDACTED:api_key]'],
      ['api_key=abcd1234efgh', 'api_key', 'api_key=[REDACTED:api_key]'],
      ['my password is hunter22', 'password', 'my password is [REDACTED:password]'],
      ['"password": "s3cr3t!"', 'password', '"password": "[REDACTED:password]"'],
      ['token: 0123456789abcdef', 'token', 'token: [REDACTED:token]'],
      ['xoxb-1234567890-abcdefghij', 'slack_token', '[REDACTED:slack_token]'],
      ['t eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U', 'jwt', 't [REDACTED:jwt]'],
    ];
    for (const [input, kind, output] of cases) {
      const r = scrubSecrets(input);
      expect(r.text, input).toBe(output);
      expect(r.redacted, input).toEqual({ [kind]: 1 });
      expect(r.total).toBe(1);
    }
  });

  it('removes a whole private key block and counts several secrets', () => {
    const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----';
    const r = scrubSecrets(`deploy key:\n${pem}\nand AKIAIOSFODNN7EXAMPLE, AKIAABCDEFGHIJKLMNOP`);
    expect(r.text).toBe('deploy key:\n[REDACTED:private_key]\nand [REDACTED:aws_access_key], [REDACTED:aws_access_key]');
    expect(r.redacted).toEqual({ private_key: 1, aws_access_key: 2 });
    expect(r.total).toBe(3);
    expect(r.text).not.toContain('MIIE');
  });

  it('leaves ordinary text alone, including words like password without a value', () => {
    for (const t of ['I forgot my password again', 'The token economy is growing', 'Alice prefers tea', 'the key is under the mat']) {
      expect(scrubSecrets(t)).toEqual({ text: t, redacted: {}, total: 0 });
    }
  });
});

describe('scrubLabelled', () => {
  it('sees a value after its label, as the stored "field: value" line reads, and returns the value alone', () => {
    expect(scrubLabelled('password', 'correct-horse')).toMatchObject({ text: '[REDACTED:password]', total: 1, redacted: { password: 1 } });
    expect(scrubLabelled('api_key', 'abcd1234efgh')).toMatchObject({ text: '[REDACTED:api_key]', total: 1 });
    expect(scrubLabelled('note', 'call with sk-live-4f9a8b7c6d5e4f3a2b1c0d9e today')).toMatchObject({ text: 'call with [REDACTED:api_key] today', total: 1 });
    // The same value under an ordinary label is not a secret.
    expect(scrubLabelled('note', 'correct-horse')).toEqual({ text: 'correct-horse', redacted: {}, total: 0 });
  });
});
