/**
 * Secret scrubbing for text about to be stored (memory_remember): every secret found is replaced
 * by a `[REDACTED:<kind>]` marker, and only the counts per kind are reported, never the secret.
 * The patterns are applied in order; a later pattern never sees what an earlier one replaced
 * (a marker holds no secret-shaped text).
 */

export const SECRET_KINDS = [
  'private_key',
  'aws_access_key',
  'aws_secret_key',
  'bearer_token',
  'jwt',
  'github_token',
  'slack_token',
  'api_key',
  'password',
  'token',
] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

interface SecretPattern {
  kind: SecretKind;
  re: RegExp;
  /** Keep this capture group (a label such as `password=`) before the marker. */
  keepLabel?: boolean;
}

const PATTERNS: readonly SecretPattern[] = [
  // PEM private keys (RSA, EC, OPENSSH, PGP, ...), the whole block; an unterminated block to the end.
  { kind: 'private_key', re: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|$)/g },
  // AWS secret access keys given with their name (40 base64 characters).
  { kind: 'aws_secret_key', re: /(aws_?secret_?(?:access_?)?key\s*["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}\b/gi, keepLabel: true },
  // AWS access key ids.
  { kind: 'aws_access_key', re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b/g },
  // Authorization: Bearer <token> (the scheme word is kept).
  { kind: 'bearer_token', re: /(\bbearer\s+)[A-Za-z0-9\-._~+/]{8,}=*/gi, keepLabel: true },
  // JSON Web Tokens.
  { kind: 'jwt', re: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g },
  // GitHub tokens (classic and fine-grained).
  { kind: 'github_token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})\b/g },
  // Slack tokens.
  { kind: 'slack_token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  // Provider API keys of the sk-/pk-/rk- forms (OpenAI, Anthropic, Stripe, ...) and Google API keys.
  { kind: 'api_key', re: /\b(?:sk|pk|rk)[-_](?:live[-_]|test[-_]|proj[-_]|ant[-_])?[A-Za-z0-9_-]{16,}|\bAIza[0-9A-Za-z_-]{35}\b/g },
  // Named assignments: api_key=..., "password": "...", secret: ..., token=...
  {
    kind: 'api_key',
    re: /(\b(?:api[_-]?key|apikey|access[_-]?key|client[_-]?secret|secret[_-]?key|x-api-key)\b\s*["']?\s*[:=]\s*["']?)(?!\[REDACTED:)[^\s"',;]{4,}/gi,
    keepLabel: true,
  },
  { kind: 'password', re: /(\b(?:password|passwd|pwd|passphrase|passcode)\b\s*["']?\s*(?:[:=]|\bis\b)\s*["']?)(?!\[REDACTED:)[^\s"',;]{3,}/gi, keepLabel: true },
  { kind: 'token', re: /(\b(?:token|secret|auth[_-]?token|access[_-]?token|refresh[_-]?token)\b\s*["']?\s*[:=]\s*["']?)(?!\[REDACTED:)[^\s"',;]{6,}/gi, keepLabel: true },
];

export interface ScrubResult {
  /** The text with each secret replaced by `[REDACTED:<kind>]`. */
  text: string;
  /** Secrets replaced, per kind (only kinds found). */
  redacted: Partial<Record<SecretKind, number>>;
  /** All secrets replaced. */
  total: number;
}

/** The marker a secret of this kind is replaced with. */
export function redactionMarker(kind: SecretKind): string {
  return `[REDACTED:${kind}]`;
}

/** Replace every secret in `text` by its marker; report the counts per kind (never the secrets). */
export function scrubSecrets(text: string): ScrubResult {
  let out = text;
  const redacted: Partial<Record<SecretKind, number>> = {};
  let total = 0;
  for (const p of PATTERNS) {
    out = out.replace(p.re, (...m: unknown[]) => {
      redacted[p.kind] = (redacted[p.kind] ?? 0) + 1;
      total++;
      const label = p.keepLabel ? String(m[1] ?? '') : '';
      return `${label}${redactionMarker(p.kind)}`;
    });
  }
  return { text: out, redacted, total };
}

/**
 * Scrub a value stored after a label, as a typed fact's field is (`<field>: <value>`,
 * typedFieldsText): the patterns see the label too, as they would in the stored text, so a field
 * named `password` or `api_key` has its value taken as the secret; the label is not returned.
 * When a pattern took part of the label, the value is scrubbed on its own.
 */
export function scrubLabelled(label: string, value: string): ScrubResult {
  const head = `${label}: `;
  const r = scrubSecrets(head + value);
  return r.text.startsWith(head) ? { ...r, text: r.text.slice(head.length) } : scrubSecrets(value);
}

/** Add the counts of `more` into `into` (per kind and total). */
export function addScrubCounts(into: { redacted: Partial<Record<SecretKind, number>>; total: number }, more: ScrubResult): void {
  for (const [kind, n] of Object.entries(more.redacted) as [SecretKind, number][]) into.redacted[kind] = (into.redacted[kind] ?? 0) + n;
  into.total += more.total;
}
