import fs from 'node:fs';
import path from 'node:path';
import { fileFailureError, makeDirs, tempNameFor } from '@memory-service/kernel';
import type { ScopeDocKind, ScopeDocument } from './scope-doc.js';

/**
 * A scope export written a record at a time (memory_data export). The document used to be built
 * whole, then serialised as one string to measure it against the inline limit and again to write
 * its file: a few thousand memories under a small heap (--max-old-space-size=32) aborted the whole
 * process, out of memory. Here its JSON is produced record by record, byte for byte what
 * JSON.stringify(document) gives (the header members, then each kind's list, in the document's
 * order); an export to a file is written in pieces through a temp file renamed at the end, and an
 * inline one goes to a file as soon as it passes the inline limit, with nothing of it kept.
 */

/** What a document holds before its lists: format, version, exported_at, layer, user_id, in that order. */
export type DocHeader = Pick<ScopeDocument, 'format' | 'version' | 'exported_at' | 'layer' | 'user_id'>;

/** One kind of a document and its records, produced in order as they are read (each list read once). */
export type KindRecords = readonly [kind: ScopeDocKind, records: () => Iterable<object>];

/** A document as it is written: its header, then its kinds in the document's order. */
export interface DocParts {
  header: DocHeader;
  kinds: readonly KindRecords[];
}

/**
 * Emit the JSON of a document a record at a time: the concatenation of what `emit` is given is
 * exactly JSON.stringify of the document the parts make. `onRecord` sees each record as it goes.
 */
export function emitDocJson(parts: DocParts, emit: (text: string) => void, onRecord?: (kind: ScopeDocKind, record: object) => void): void {
  // The header's members as JSON.stringify writes them, without its closing brace.
  emit(JSON.stringify(parts.header).slice(0, -1));
  for (const [kind, records] of parts.kinds) {
    emit(`,${JSON.stringify(kind)}:[`);
    let first = true;
    for (const record of records()) {
      onRecord?.(kind, record);
      emit(first ? JSON.stringify(record) : `,${JSON.stringify(record)}`);
      first = false;
    }
    emit(']');
  }
  emit('}');
}

/** The parts of a document already in memory (its lists in the document's order). */
export function partsOf(doc: ScopeDocument, kinds: readonly ScopeDocKind[]): DocParts {
  const { format, version, exported_at, layer, user_id } = doc;
  return { header: { format, version, exported_at, layer, user_id }, kinds: kinds.map((k) => [k, () => doc[k] as object[]] as const) };
}

/** Text gathered before a write: a few writes of about this many bytes each, whatever the document's size. */
const FLUSH_BYTES = 64 * 1024;

/**
 * An export file written in pieces: a temp file beside where it goes (kernel tempNameFor, so the
 * start's stale-temp cleanup removes one a kill left), renamed to a free name `<base>.json`,
 * `<base>-2.json`, ... by commit. A failure names the file; abort removes the temp.
 */
export class ExportFileWriter {
  private readonly tmp: string;
  private fd: number | null = null;
  private pending: string[] = [];
  private pendingBytes = 0;
  /** Bytes of UTF-8 written so far (or gathered to be). */
  bytes = 0;

  constructor(
    private readonly dir: string,
    private readonly base: string,
  ) {
    this.tmp = tempNameFor(path.join(dir, `${base}.json`));
  }

  write(text: string): void {
    const n = Buffer.byteLength(text, 'utf8');
    this.bytes += n;
    this.pending.push(text);
    this.pendingBytes += n;
    if (this.pendingBytes >= FLUSH_BYTES) this.flush();
  }

  /** Finish the file under a free name in its folder; answers that name. */
  commit(): string {
    this.flush();
    this.guard(() => {
      if (this.fd === null) this.open();
      fs.closeSync(this.fd!);
      this.fd = null;
    });
    let name = `${this.base}.json`;
    for (let n = 2; fs.existsSync(path.join(this.dir, name)); n++) name = `${this.base}-${n}.json`;
    this.guard(() => fs.renameSync(this.tmp, path.join(this.dir, name)), name);
    return name;
  }

  /** Give the file up: its temp is closed and removed (never throws). */
  abort(): void {
    if (this.fd !== null) {
      try {
        fs.closeSync(this.fd);
      } catch {
        // Already unusable: the temp is removed below all the same.
      }
      this.fd = null;
    }
    this.pending = [];
    try {
      fs.rmSync(this.tmp, { force: true });
    } catch {
      // Left for the next start's stale-temp cleanup.
    }
  }

  private open(): void {
    makeDirs(this.dir);
    this.fd = fs.openSync(this.tmp, 'wx', 0o644);
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const bytes = Buffer.from(this.pending.join(''), 'utf8');
    this.pending = [];
    this.pendingBytes = 0;
    this.guard(() => {
      if (this.fd === null) this.open();
      for (let at = 0; at < bytes.length; ) at += fs.writeSync(this.fd!, bytes, at, bytes.length - at);
    });
  }

  /** Run a file operation; a failure removes the temp and is thrown naming the export file. */
  private guard(op: () => void, name = `${this.base}.json`): void {
    try {
      op();
    } catch (err) {
      this.abort();
      // Node's message ("ENOSPC: no space left on device, write") names no file.
      throw fileFailureError(path.join(this.dir, name), err, 'writing the export file') ?? err;
    }
  }
}
