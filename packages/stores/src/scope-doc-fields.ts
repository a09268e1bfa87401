import { MAX_DATA_DEPTH, nestsDeeperThan, overChars } from '@memory-service/kernel';
import { validationError } from './errors.js';
import { checkIsoTimestamp } from './iso-time.js';

/** Most records of one kind a document may hold. */
export const SCOPE_DOC_MAX_RECORDS = 100_000;

export type Obj = Record<string, unknown>;

/** Reads the fields of one record, each error naming its path (`data.facts[3].key`). */
export class Fields {
  constructor(
    private readonly o: Obj,
    readonly at: string,
  ) {}

  private fail(name: string, problem: string, accepted?: unknown): never {
    throw validationError(`${this.at}.${name}`, `${this.at}.${name} ${problem}`, accepted);
  }

  raw(name: string): unknown {
    return this.o[name];
  }

  text(name: string, max: number, opts: { empty?: boolean; optional?: string } = {}): string {
    const v = this.o[name];
    if (v === undefined && opts.optional !== undefined) return opts.optional;
    if (typeof v !== 'string') this.fail(name, 'must be a string', 'string');
    if (!opts.empty && v.trim() === '') this.fail(name, 'must not be empty', 'a non-empty string');
    if (overChars(v, max)) this.fail(name, `is longer than ${max} characters`, `at most ${max} characters`);
    return v;
  }

  nullableText(name: string, max: number): string | null {
    return this.o[name] === null || this.o[name] === undefined ? null : this.text(name, max, { empty: true });
  }

  number(name: string, lo: number, hi: number, def?: number): number {
    const v = this.o[name];
    if (v === undefined && def !== undefined) return def;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < lo || v > hi) this.fail(name, `must be a number from ${lo} to ${hi}`, `${lo}..${hi}`);
    return v;
  }

  oneOf<T extends string>(name: string, values: readonly T[], def?: T): T {
    const v = this.o[name];
    if (v === undefined && def !== undefined) return def;
    if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) this.fail(name, `must be one of ${values.join(', ')}`, values);
    return v as T;
  }

  tags(name: string): string[] {
    const v = this.o[name];
    if (v === undefined) return [];
    if (!Array.isArray(v) || v.some((t) => typeof t !== 'string' || overChars(t, 200))) this.fail(name, 'must be a list of strings of at most 200 characters', 'list of strings');
    return v as string[];
  }

  object(name: string): Record<string, unknown> {
    const v = this.o[name];
    if (v === undefined) return {};
    if (v === null || typeof v !== 'object' || Array.isArray(v)) this.fail(name, 'must be an object', 'object');
    this.shallow(name, v);
    return v as Record<string, unknown>;
  }

  /** A field of free JSON (an object or a list: a session's state_deltas), at most MAX_DATA_DEPTH levels deep; undefined when absent. */
  data(name: string): unknown {
    const v = this.o[name];
    if (v !== undefined && v !== null && typeof v === 'object') this.shallow(name, v);
    return v;
  }

  /**
   * Free JSON is stored with JSON.stringify and read back with JSON.parse, which recurse: a value
   * some thousands of levels deep overflowed the stack in the write, failing the import naming no
   * field. The bound is the one tool arguments and event payloads have (kernel MAX_DATA_DEPTH).
   */
  private shallow(name: string, v: object): void {
    if (nestsDeeperThan(v, MAX_DATA_DEPTH)) this.fail(name, `nests objects or lists more than ${MAX_DATA_DEPTH} levels deep`, `JSON at most ${MAX_DATA_DEPTH} levels deep`);
  }

  time(name: string, def?: string): string {
    const v = this.o[name];
    // An empty time is none, as a checked document holds it (import then uses the time of the import).
    if ((v === undefined || v === '') && def !== undefined) return def;
    // The query tools' parser: ISO 8601 only, read in UTC whatever the server's zone, years 0000-9999 (stored times sort as text).
    return checkIsoTimestamp(v, `${this.at}.${name}`);
  }

  nullableTime(name: string): string | null {
    return this.o[name] === null || this.o[name] === undefined ? null : this.time(name);
  }

  bool(name: string, def: boolean): boolean {
    const v = this.o[name];
    if (v === undefined) return def;
    if (typeof v !== 'boolean') this.fail(name, 'must be true or false', 'boolean');
    return v;
  }

  nullableNumber(name: string, lo: number, hi: number): number | null {
    return this.o[name] === null || this.o[name] === undefined ? null : this.number(name, lo, hi);
  }

  /** A list field of any items (the kind's own check reads them). */
  list(name: string, opts: { min?: number; max?: number; def?: unknown[] } = {}): unknown[] {
    const v = this.o[name];
    if (v === undefined && opts.def !== undefined) return opts.def;
    const min = opts.min ?? 0;
    const max = opts.max ?? SCOPE_DOC_MAX_RECORDS;
    if (!Array.isArray(v) || v.length < min || v.length > max) this.fail(name, `must be a list of ${min} to ${max} items`, `a list of ${min}..${max} items`);
    return v;
  }

  /** The records of a list field of objects (a stash's entries), each read by its own Fields. */
  nested(name: string): Fields[] {
    return records(this.o, name, this.at);
  }

  /**
   * Run a check of the stores that names a bare field (recordName, checkWatchPredicate, ...) and
   * name its error at this record's path instead: `field` (or the field it names) under `at`.
   */
  check<T>(fn: () => T, rename: (field: string) => string = (f) => f): T {
    try {
      return fn();
    } catch (err) {
      const e = err as { field?: string; message: string; accepted?: unknown };
      if (typeof e.field === 'string') {
        const path = `${this.at}.${rename(e.field)}`;
        throw validationError(path, `${path}: ${e.message}`, e.accepted);
      }
      throw err;
    }
  }
}

export function records(doc: Obj, kind: string, root: string): Fields[] {
  const v = doc[kind];
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw validationError(`${root}.${kind}`, `${root}.${kind} must be a list`, 'list');
  if (v.length > SCOPE_DOC_MAX_RECORDS) throw validationError(`${root}.${kind}`, `${root}.${kind} holds more than ${SCOPE_DOC_MAX_RECORDS} records`, `at most ${SCOPE_DOC_MAX_RECORDS}`);
  return v.map((r, i) => {
    const at = `${root}.${kind}[${i}]`;
    if (r === null || typeof r !== 'object' || Array.isArray(r)) throw validationError(at, `${at} must be an object`, 'object');
    return new Fields(r as Obj, at);
  });
}

export function unique(fields: Fields[], name: string, value: (i: number) => string): void {
  const seen = new Set<string>();
  fields.forEach((f, i) => {
    const v = value(i);
    if (seen.has(v)) throw validationError(`${f.at}.${name}`, `${f.at}.${name} repeats ${JSON.stringify(v.slice(0, 100))}, given earlier in the list`, `a ${name} not given before`);
    seen.add(v);
  });
}

