import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { StoreContext } from '../context.js';
import { notFound, validationError } from '../errors.js';
import { checkText, makeId, parseId } from '../util.js';

/** Longest API key name. */
export const API_KEY_NAME_MAX = 100;
/** The longest key_id revoke reads (`key_<n>`, trimmed), in characters. */
export const API_KEY_ID_MAX = 40;
/** The id prefix of an API key (`key_<n>`). */
export const API_KEY_PREFIX = 'key';
/** The table of the keys (migration stores_api_keys): a restore keeps its rows as they are (backups.ts). */
export const API_KEYS_TABLE = 'api_keys';
/**
 * last_used is written at most this often per key: a check on every HTTP request would otherwise
 * be a write on every request.
 */
export const API_KEY_TOUCH_MS = 60_000;

/** What memory_api_key lists of a key: never its secret nor its hash. */
export interface ApiKeyInfo {
  id: string;
  name: string;
  created: string;
  last_used: string | null;
  revoked: string | null;
}

/** The answer of ApiKeyStore.verify: the key is active, unknown (no such key or a wrong secret), or revoked. */
export type ApiKeyVerdict = 'ok' | 'unknown' | 'revoked';

interface Row {
  id: number;
  name: string;
  salt: string;
  hash: string;
  created: string;
  last_used: string | null;
  revoked: string | null;
}

/** `msk_<id>_<secret>`: the id lets a check find its row; the secret is 32 random bytes, base64url. */
const KEY_FORMAT = /^msk_([1-9][0-9]{0,15})_([A-Za-z0-9_-]{43})$/;

function digest(salt: string, secret: string): string {
  return createHash('sha256').update(salt).update(':').update(secret).digest('hex');
}

function info(r: Row): ApiKeyInfo {
  return { id: makeId(API_KEY_PREFIX, r.id), name: r.name, created: r.created, last_used: r.last_used, revoked: r.revoked };
}

/**
 * The HTTP API keys of the service (memory_api_key; checked by the HTTP server). Keys are
 * service-wide, not per layer or user_id. A key is `msk_<id>_<secret>`, answered once by create;
 * only a per-key random salt and SHA-256(salt:secret) are stored (the secret has 256 random bits,
 * so a slow hash adds nothing but a delay to every request). Revoking keeps the row, so a revoked
 * key is told apart from an unknown one (403 either way) and authentication, once on, stays on.
 */
export class ApiKeyStore {
  constructor(private readonly ctx: StoreContext) {}

  /** Create a key named `name`; the answer holds the key, which is never shown again. */
  create(name: unknown): ApiKeyInfo & { key: string } {
    const clean = checkText(name, 'name', API_KEY_NAME_MAX).trim();
    if (/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(clean)) throw validationError('name', 'name must not hold control or format characters', 'printable text');
    const secret = randomBytes(32).toString('base64url');
    const salt = randomBytes(16).toString('hex');
    const created = this.ctx.iso();
    const id = this.ctx.tx(
      () => this.ctx.stmt('INSERT INTO api_keys (name, salt, hash, created) VALUES (?, ?, ?, ?)').run(clean, salt, digest(salt, secret), created).lastInsertRowid,
    );
    return { id: makeId(API_KEY_PREFIX, id), name: clean, created, last_used: null, revoked: null, key: `msk_${id}_${secret}` };
  }

  /** Every key, oldest first, revoked ones included (marked). */
  list(): ApiKeyInfo[] {
    return (this.ctx.stmt('SELECT * FROM api_keys ORDER BY id').all() as Row[]).map(info);
  }

  /** Revoke the key with id `key_<n>`; revoking a revoked key changes nothing. */
  revoke(keyId: unknown): ApiKeyInfo & { already_revoked: boolean } {
    const text = checkText(keyId, 'key_id', API_KEY_ID_MAX).trim();
    const n = parseId(API_KEY_PREFIX, text);
    if (n === null) throw validationError('key_id', `key_id must be a key id of the form ${API_KEY_PREFIX}_<number>, as list answers`, `${API_KEY_PREFIX}_<number>`);
    return this.ctx.tx(() => {
      const row = this.ctx.stmt('SELECT * FROM api_keys WHERE id = ?').get(n) as Row | undefined;
      if (!row) throw notFound('API key', text, 'key_id');
      if (row.revoked) return { ...info(row), already_revoked: true };
      const revoked = this.ctx.iso();
      this.ctx.stmt('UPDATE api_keys SET revoked = ? WHERE id = ?').run(revoked, n);
      return { ...info({ ...row, revoked }), already_revoked: false };
    });
  }

  /** Whether any key was ever created: from then on HTTP requests need one (revoked keys count). */
  any(): boolean {
    return this.ctx.stmt('SELECT 1 FROM api_keys LIMIT 1').get() !== undefined;
  }

  /** Check a presented key; an active one has its last_used stamped (at most once per API_KEY_TOUCH_MS). */
  verify(presented: string): ApiKeyVerdict {
    const m = KEY_FORMAT.exec(presented.trim());
    if (!m) return 'unknown';
    const row = this.ctx.stmt('SELECT * FROM api_keys WHERE id = ?').get(Number(m[1])) as Row | undefined;
    if (!row) return 'unknown';
    const want = Buffer.from(row.hash, 'hex');
    const got = Buffer.from(digest(row.salt, m[2]!), 'hex');
    if (want.length !== got.length || !timingSafeEqual(want, got)) return 'unknown';
    if (row.revoked) return 'revoked';
    const now = this.ctx.clock.now();
    if (row.last_used === null || now - Date.parse(row.last_used) >= API_KEY_TOUCH_MS) {
      try {
        this.ctx.tx(() => this.ctx.stmt('UPDATE api_keys SET last_used = ? WHERE id = ?').run(this.ctx.iso(), row.id));
      } catch (err) {
        // Bookkeeping only: a key that checks out is accepted even when the stamp cannot be written.
        this.ctx.logger.warn(`stamping last_used of API key ${makeId(API_KEY_PREFIX, row.id)} failed: ${(err as Error).message}`);
      }
    }
    return 'ok';
  }
}
