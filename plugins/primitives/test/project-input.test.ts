import os from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { snapshot, start, toolError, type TestServer } from './helpers.js';

/** project: what its fields accept (blank optional texts, control characters, lengths); refused input writes nothing. */
let s: TestServer;
beforeEach(async () => {
  s = await start();
});
afterEach(async () => {
  await s.close();
});

const project = (args: Record<string, unknown>) => s.call('project', args);

describe('optional texts', () => {
  // Regression guard, fixed: a blank details, status, outcome or role was stored as it came (update appended "   " to
  // the description, init and update set a status of spaces that recall then answered as the project's status), and an
  // empty path was read as no path, while a blank name or a blank decision was refused.
  it('a blank details, status, path, role or outcome is an error naming it, and nothing is written', async () => {
    await project({ action: 'init', name: 'Apollo', details: 'A rocket telemetry dashboard.' });
    const row = () => s.kernel.storage.db.prepare('SELECT status, path, description FROM projects').all();
    const others = () => s.kernel.storage.db.prepare('SELECT (SELECT COUNT(*) FROM project_decisions) AS d, (SELECT COUNT(*) FROM project_artifacts) AS a').get();
    const before = [row(), others(), snapshot(s)];
    const cases: [Record<string, unknown>, string][] = [
      [{ action: 'init', name: 'Hermes', details: '   ' }, 'details'],
      [{ action: 'init', name: 'Hermes', status: '' }, 'status'],
      [{ action: 'init', name: 'Hermes', path: '' }, 'path'],
      [{ action: 'update', name: 'Apollo', details: ' \n ' }, 'details'],
      [{ action: 'update', name: 'Apollo', details: '' }, 'details'],
      [{ action: 'update', name: 'Apollo', status: '  ' }, 'status'],
      [{ action: 'update', name: 'Apollo', path: '' }, 'path'],
      [{ action: 'mapping', name: 'Apollo', details: 'src/a.ts', role: ' ' }, 'role'],
      [{ action: 'mapping', name: 'Apollo', details: 'src/a.ts', status: '' }, 'status'],
      [{ action: 'mapping', name: 'Apollo', details: '\u200b' }, 'details'],
      [{ action: 'decision', name: 'Apollo', details: 'Use Postgres.', outcome: '   ' }, 'outcome'],
    ];
    for (const [args, field] of cases) {
      const err = await toolError(project(args));
      expect(err.field, JSON.stringify(args)).toBe(field);
      expect(err.type).toBe('ValidationError');
    }
    expect([row(), others(), snapshot(s)]).toEqual(before);
    expect(s.kernel.storage.db.prepare('SELECT name FROM projects').all()).toEqual([{ name: 'Apollo' }]);
  });
});

describe('fields an action does not take', () => {
  // Regression guard, fixed: a field the action does not use was dropped without a word, so a decision's status
  // ("accepted"), a mapping's outcome or an archive's details (the reason) was lost while the call answered success.
  it('is an error naming the field and the actions that take it, and nothing is written', async () => {
    await project({ action: 'init', name: 'Apollo', details: 'A rocket telemetry dashboard.' });
    const tables = () =>
      s.kernel.storage.db
        .prepare('SELECT (SELECT group_concat(status || description) FROM projects) AS p, (SELECT COUNT(*) FROM project_decisions) AS d, (SELECT COUNT(*) FROM project_artifacts) AS a')
        .get();
    const before = [tables(), snapshot(s)];
    const cases: [Record<string, unknown>, string, string][] = [
      [{ action: 'decision', name: 'Apollo', details: 'Use Postgres.', status: 'accepted' }, 'status', 'init, update, mapping'],
      [{ action: 'decision', name: 'Apollo', details: 'Use Postgres.', role: 'db' }, 'role', 'mapping'],
      [{ action: 'decision', name: 'Apollo', details: 'Use Postgres.', path: os.tmpdir() }, 'path', 'init, update'],
      [{ action: 'mapping', name: 'Apollo', details: 'src/a.ts', outcome: 'kept' }, 'outcome', 'decision'],
      [{ action: 'mapping', name: 'Apollo', details: 'src/a.ts', path: os.tmpdir() }, 'path', 'init, update'],
      [{ action: 'init', name: 'Hermes', role: 'lead' }, 'role', 'mapping'],
      [{ action: 'update', name: 'Apollo', outcome: 'shipped' }, 'outcome', 'decision'],
      [{ action: 'archive', name: 'Apollo', details: 'Superseded by Hermes.' }, 'details', 'init, update, mapping, decision'],
      [{ action: 'recall', name: 'Apollo', status: 'active' }, 'status', 'init, update, mapping'],
      [{ action: 'audit', name: 'Apollo', details: 'security' }, 'details', 'init, update, mapping, decision'],
    ];
    for (const [args, field, takenBy] of cases) {
      const err = await toolError(project(args));
      expect(err.type, JSON.stringify(args)).toBe('ValidationError');
      expect(err.field, JSON.stringify(args)).toBe(field);
      expect(err.message, JSON.stringify(args)).toContain(`action ${args.action as string}`);
      expect(err.message, JSON.stringify(args)).toContain(takenBy);
    }
    expect([tables(), snapshot(s)]).toEqual(before);
    expect(s.kernel.storage.db.prepare('SELECT name FROM projects').all()).toEqual([{ name: 'Apollo' }]);
  });
});

describe('details sent under another name', () => {
  // Regression guard, fixed: decision {decision, rationale} and mapping {file} were told only that details is
  // required, while the keys they gave were dropped without a word.
  it('is refused naming details and the keys given instead, with nothing written', async () => {
    await project({ action: 'init', name: 'Apollo' });
    const before = snapshot(s);
    const d = await toolError(project({ action: 'decision', name: 'Apollo', decision: 'Use Postgres', rationale: 'volume' }));
    expect(d).toMatchObject({ type: 'ValidationError', field: 'details' });
    expect(d.message).toContain('the call gave "decision", "rationale" instead, which this tool does not take (arguments: action, name, details');
    const m = await toolError(project({ action: 'mapping', name: 'Apollo', file: 'src/a.ts' }));
    expect(m).toMatchObject({ type: 'ValidationError', field: 'details' });
    expect(m.message).toContain('the call gave "file" instead');
    expect(snapshot(s)).toEqual(before);
  });
});

describe('names in another Unicode normalization form', () => {
  // Regression guard, fixed: "Café" written with a combining accent (NFD, as macOS file names and some keyboards give
  // it) and with the precomposed é (NFC) were two projects that look the same: recall of one said the other did
  // not exist, and init made a second project with a second spec page.
  it('name one project, answered in NFC', async () => {
    const nfd = 'Cafe\u0301';
    const nfc = 'Caf\u00e9';
    expect((await project({ action: 'init', name: nfd, details: 'A coffee shop site.' })).project).toBe(nfc);
    expect((await project({ action: 'init', name: nfc })).status).toBe('exists');
    await project({ action: 'decision', name: nfd, details: 'Use Postgres.' });
    const r = await project({ action: 'recall', name: nfc });
    expect(r).toMatchObject({ project: nfc, decision_count: 1, wiki_ref: { title: `Project: ${nfc}` } });
    expect(s.kernel.storage.db.prepare('SELECT name FROM projects').all()).toEqual([{ name: nfc }]);
    expect(s.kernel.storage.db.prepare("SELECT COUNT(*) AS n FROM wiki_pages WHERE wiki_type = 'project_spec'").get()).toEqual({ n: 1 });
  });

  it('a project stored earlier under an NFD name is still found by that name', async () => {
    const nfd = 'Cafe\u0301';
    s.kernel.storage.db.prepare("INSERT INTO projects (name, status, path, description, created, updated) VALUES (?, 'active', NULL, '', '2026-01-01', '2026-01-01')").run(nfd);
    const r = await project({ action: 'recall', name: nfd });
    expect(r).toMatchObject({ project: nfd, status: 'active' });
    expect((await project({ action: 'decision', name: nfd, details: 'Keep it.' })).project).toBe(nfd);
  });

  // Regression guard, fixed: the project stored under its NFD name was not found by the NFC name, so init with it made
  // a second project whose spec page replaced the first one's (the wiki finds a title in either form) and hid it.
  it('a project stored earlier under an NFD name is found by its NFC name, and init with that name leaves its spec page', async () => {
    const nfd = 'Crème app';
    const nfc = 'Crème app';
    s.kernel.storage.db.prepare("INSERT INTO projects (name, status, path, description, created, updated) VALUES (?, 'active', NULL, 'Old app.', '2026-01-01', '2026-01-01')").run(nfd);
    await project({ action: 'decision', name: nfd, details: 'Use SQLite.' });
    expect(await project({ action: 'recall', name: nfc })).toMatchObject({ project: nfd, decision_count: 1 });
    expect((await project({ action: 'init', name: nfc, details: 'New app.' })).status).toBe('exists');
    expect(s.kernel.storage.db.prepare('SELECT name FROM projects').all()).toEqual([{ name: nfd }]);
  });

  it('two projects an older build stored under both forms of a name are each found by their own form', async () => {
    const insert = s.kernel.storage.db.prepare("INSERT INTO projects (name, status, path, description, created, updated) VALUES (?, ?, NULL, '', '2026-01-01', '2026-01-01')");
    insert.run('Café', 'paused');
    insert.run('Café', 'active');
    expect(await project({ action: 'recall', name: 'Café' })).toMatchObject({ project: 'Café', status: 'paused' });
    expect(await project({ action: 'recall', name: 'Café' })).toMatchObject({ project: 'Café', status: 'active' });
  });
});

describe('control characters', () => {
  // Regression guard, fixed: a project's name, status, role and path accepted control characters ("\u0007",
  // "\u001b[31m", DEL, C1), stored as sent and shown to every later reader (a terminal obeys them), and a line break
  // in status wrote a line of its own into the spec page ("Status: done\nPath: /etc").
  it('a control character in the name or a one-line field is an error naming it, and nothing is written', async () => {
    await project({ action: 'init', name: 'Apollo', details: 'A rocket telemetry dashboard.' });
    const tables = () =>
      s.kernel.storage.db
        .prepare(
          'SELECT (SELECT COUNT(*) FROM projects) AS p, (SELECT COUNT(*) FROM project_decisions) AS d, (SELECT COUNT(*) FROM project_artifacts) AS a, (SELECT group_concat(status || path || description) FROM projects) AS rows',
        )
        .get();
    const before = [tables(), snapshot(s)];
    const cases: [Record<string, unknown>, string, string][] = [
      [{ action: 'init', name: 'Bell\u0007' }, 'name', 'U+0007'],
      [{ action: 'init', name: '\u001b[31mRed' }, 'name', 'U+001B'],
      [{ action: 'init', name: 'Two\nlines' }, 'name', 'U+000A'],
      [{ action: 'init', name: 'Tab\tbed' }, 'name', 'U+0009'],
      [{ action: 'init', name: 'Del\u007f' }, 'name', 'U+007F'],
      [{ action: 'init', name: 'Csi\u009b2J' }, 'name', 'U+009B'],
      [{ action: 'recall', name: 'Apollo\u0085' }, 'name', 'U+0085'],
      [{ action: 'init', name: 'Hermes', status: 'active\u0007' }, 'status', 'U+0007'],
      [{ action: 'update', name: 'Apollo', status: 'done\nPath: /etc' }, 'status', 'U+000A'],
      [{ action: 'update', name: 'Apollo', path: `${os.tmpdir()}\u0007` }, 'path', 'U+0007'],
      [{ action: 'update', name: 'Apollo', details: 'More.\u001b[2J' }, 'details', 'U+001B'],
      [{ action: 'update', name: 'Apollo', details: 'Carriage\rreturn' }, 'details', 'U+000D'],
      [{ action: 'mapping', name: 'Apollo', details: 'src/a.ts', role: 'entry\u0008' }, 'role', 'U+0008'],
      [{ action: 'mapping', name: 'Apollo', details: 'src/a.ts', status: 'done\u0000' }, 'status', 'U+0000'],
      [{ action: 'mapping', name: 'Apollo', details: 'src/a.ts\nsrc/b.ts' }, 'details', 'U+000A'],
      [{ action: 'decision', name: 'Apollo', details: 'Use Postgres.\u0007' }, 'details', 'U+0007'],
      [{ action: 'decision', name: 'Apollo', details: 'Use Postgres.', outcome: 'adopted\u001b[0m' }, 'outcome', 'U+001B'],
    ];
    for (const [args, field, unit] of cases) {
      const err = await toolError(project(args));
      expect(err.type, JSON.stringify(args)).toBe('ValidationError');
      expect(err.field, JSON.stringify(args)).toBe(field);
      // NUL is refused before the tool runs, by the kernel's check of every argument (also naming the field).
      if (unit !== 'U+0000') expect(err.message, JSON.stringify(args)).toMatch(new RegExp(`control characters.*${unit.replace('+', '\\+')}`));
    }
    expect([tables(), snapshot(s)]).toEqual(before);
  });

  it('a new project named with an invisible format character (zero-width space, bidi override) is an error naming name', async () => {
    const before = snapshot(s);
    for (const name of ['Apol\u200Blo', 'invoice\u202Efdp', 'Hy\u00ADphen']) {
      const err = await toolError(project({ action: 'init', name, details: 'x' }));
      expect(err, JSON.stringify(name)).toMatchObject({ type: 'ValidationError', field: 'name', message: expect.stringMatching(/invisible format/) });
    }
    expect(snapshot(s)).toEqual(before);
  });

  it('details as a description or decision, and outcome, may keep line breaks and tabs', async () => {
    await project({ action: 'init', name: 'Apollo', details: 'Line one.\n\tIndented line.' });
    const u = await project({ action: 'update', name: 'Apollo', details: 'Windows text.\r\nSecond line.' });
    expect(u.identity.description).toBe('Line one.\n\tIndented line.\n\nWindows text.\r\nSecond line.');
    const d = await project({ action: 'decision', name: 'Apollo', details: 'Use Postgres.\nIt handles\tthe volume.', outcome: 'adopted\nthen revisited' });
    expect(d.decisions[0]).toMatchObject({ decision: 'Use Postgres.', rationale: 'It handles\tthe volume.', outcome: 'adopted\nthen revisited' });
  });
});

describe('length limits', () => {
  // Regression guard, fixed: a mapping's file path over the artifact limit was refused naming "path" (the project
  // directory's field, which the call did not pass), not details; and once update had appended enough details, the
  // spec page went over the text limit and the call was refused naming "content", a field project does not have.
  it("a mapping's details over 1000 characters is an error naming details", async () => {
    await project({ action: 'init', name: 'Apollo' });
    const before = snapshot(s);
    const err = await toolError(project({ action: 'mapping', name: 'Apollo', details: `src/${'a'.repeat(1000)}.ts` }));
    expect(err).toMatchObject({ type: 'ValidationError', field: 'details', accepted: { max: 1000 } });
    expect(err.message).toContain('1000');
    expect(snapshot(s)).toEqual(before);
  });

  it('details that would take the description and its spec page over think.max_text_chars are an error naming details', async () => {
    await s.close();
    s = await start({ config: { think: { max_text_chars: 500 } } });
    await project({ action: 'init', name: 'Apollo', details: 'd'.repeat(300) });
    const description = () => (s.kernel.storage.db.prepare('SELECT description FROM projects').get() as { description: string }).description;
    const err = await toolError(project({ action: 'update', name: 'Apollo', details: 'e'.repeat(300) }));
    expect(err).toMatchObject({ type: 'ValidationError', field: 'details', accepted: { max: 500 } });
    expect(err.message).toMatch(/think\.max_text_chars/);
    expect(description()).toBe('d'.repeat(300));
    const init = await toolError(project({ action: 'init', name: 'Hermes', details: 'h'.repeat(499) }));
    expect(init).toMatchObject({ type: 'ValidationError', field: 'details' });
    expect(s.kernel.storage.db.prepare('SELECT name FROM projects').all()).toEqual([{ name: 'Apollo' }]);
    // Details that fit are still appended.
    expect((await project({ action: 'update', name: 'Apollo', details: 'fits' })).identity.description).toBe(`${'d'.repeat(300)}\n\nfits`);
  });

  // Regression guard, fixed: a decision whose first sentence (the decision; the rest is its rationale) was over
  // think.max_text_chars was refused by the project store naming "decision", a field project does not take.
  it('a decision over think.max_text_chars is an error naming details and the limit, and records nothing', async () => {
    await s.close();
    s = await start({ config: { think: { max_text_chars: 200 } } });
    await project({ action: 'init', name: 'Apollo' });
    const before = snapshot(s);
    const err = await toolError(project({ action: 'decision', name: 'Apollo', details: `Use ${'a very long name '.repeat(20)}. Because.` }));
    expect(err).toMatchObject({ type: 'ValidationError', field: 'details', accepted: { max: 200 } });
    expect(err.message).toMatch(/think\.max_text_chars/);
    expect(snapshot(s)).toEqual(before);
    expect(s.kernel.storage.db.prepare('SELECT COUNT(*) AS n FROM project_decisions').get()).toEqual({ n: 0 });
    // A short decision with a long rationale is still recorded.
    expect((await project({ action: 'decision', name: 'Apollo', details: `Use Postgres. ${'It is reliable. '.repeat(30)}` })).status).toBe('recorded');
  });
});
