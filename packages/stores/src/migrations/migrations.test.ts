import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Stores } from '../stores.js';
import { TestClock, openDb } from '../test-helpers.js';
import { storesMigrations } from './index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** What migrations 2 and 4 made in a database created before the retrieval index: FTS5 tables, their triggers, a vocab view. */
function oldFtsSchema(db: ReturnType<typeof openDb>): void {
  db.exec(`
    CREATE VIRTUAL TABLE episodes_fts USING fts5(summary, tags, context, content='episodes', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
    CREATE TRIGGER episodes_fts_ai AFTER INSERT ON episodes BEGIN
      INSERT INTO episodes_fts(rowid, summary, tags, context) VALUES (new.id, new.summary, new.tags, new.context);
    END;
    CREATE TRIGGER episodes_fts_ad AFTER DELETE ON episodes BEGIN
      INSERT INTO episodes_fts(episodes_fts, rowid, summary, tags, context) VALUES ('delete', old.id, old.summary, old.tags, old.context);
    END;
    CREATE VIRTUAL TABLE episodes_fts_vocab USING fts5vocab(episodes_fts, 'row');
    CREATE VIRTUAL TABLE facts_fts USING fts5(key, value, content='facts', content_rowid='id');
    CREATE TRIGGER facts_fts_ai AFTER INSERT ON facts BEGIN INSERT INTO facts_fts(rowid, key, value) VALUES (new.id, new.key, new.value); END;
  `);
}

/** A fresh database file with the stores migrations up to `upTo` applied, and a function applying the rest. */
function migratedTo(upTo: number): { dir: string; db: ReturnType<typeof openDb>; migrateRest(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stores-migrate-'));
  dirs.push(dir);
  const db = openDb(path.join(dir, 'memory.db'));
  const byId = [...storesMigrations].sort((a, b) => a.id - b.id);
  const apply = (ms: typeof byId) => {
    for (const m of ms) db.transaction(() => m.up(db)).immediate();
  };
  apply(byId.filter((m) => m.id <= upTo));
  return { dir, db, migrateRest: () => apply(byId.filter((m) => m.id > upTo)) };
}

describe('stores migrations', () => {
  it('take a database made with the FTS5 indexes to the retrieval change log, keeping its memories', () => {
    const { dir, db, migrateRest } = migratedTo(4);
    oldFtsSchema(db);
    db.prepare(`INSERT INTO episodes (layer, user_id, summary, created) VALUES ('user', 'default', 'The heron came back to the pond.', '2026-01-01T00:00:00.000Z')`).run();
    migrateRest();
    const left = db.prepare(`SELECT name FROM sqlite_master WHERE name LIKE '%_fts%'`).all();
    expect(left).toEqual([]);
    const stores = new Stores({ db, dataDir: dir, clock: new TestClock() });
    // The old row is found, and writes work with the FTS5 triggers gone.
    expect(stores.retrieval.search({ layer: 'user', user_id: 'default' }, 'heron').map((h) => h.text)).toEqual(['The heron came back to the pond.']);
    stores.episodes.add({ layer: 'user', user_id: 'default' }, { summary: 'A second heron.' });
    stores.facts.upsert({ layer: 'user', user_id: 'default' }, { key: 'bird', value: 'heron', importance: 0.6 });
    expect(stores.retrieval.search({ layer: 'user', user_id: 'default' }, 'heron')).toHaveLength(3);
    db.close();
  });

  it('drop audit_log_ts from a database that has it, and leave every query plan of the audit trail on an index', () => {
    const { db, migrateRest } = migratedTo(6);
    // A database made before: migration 1 then made the index.
    db.exec('CREATE INDEX IF NOT EXISTS audit_log_ts ON audit_log(ts)');
    migrateRest();
    const indexes = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'audit_log' ORDER BY name`).pluck().all();
    expect(indexes).toEqual(['audit_log_feedback', 'audit_log_scope', 'audit_log_target']);
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(' | ');
    expect(plan("SELECT * FROM audit_log WHERE target_id = 'x' ORDER BY id LIMIT 5")).toMatch(/USING INDEX audit_log_target/);
    expect(plan("SELECT * FROM audit_log WHERE layer = 'user' AND user_id = 'default' AND ts >= '2026' ORDER BY ts DESC, id DESC LIMIT 5")).toMatch(/USING INDEX audit_log_scope/);
    expect(plan("DELETE FROM audit_log WHERE layer = 'user' AND user_id = 'default' AND ts >= '2026'")).toMatch(/USING INDEX audit_log_scope/);
    db.close();
  });

  it('read the top facts and graph nodes (score, then newest first) off an index with no sort, in that order', () => {
    const { dir, db, migrateRest } = migratedTo(8);
    const plan = (sql: string) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(' | ');
    const facts = "SELECT * FROM facts WHERE layer = 'user' AND user_id = 'default' ORDER BY importance DESC, id DESC LIMIT 10";
    const nodes = "SELECT * FROM graph_nodes WHERE layer = 'user' AND user_id = 'default' ORDER BY confidence DESC, id DESC LIMIT 10";
    // Before: each run of equal scores went through a temporary b-tree.
    expect(plan(facts)).toMatch(/TEMP B-TREE/);
    migrateRest();
    expect(plan(facts)).toMatch(/USING INDEX facts_importance/);
    expect(plan(nodes)).toMatch(/USING INDEX graph_nodes_confidence/);
    expect(plan(facts) + plan(nodes)).not.toMatch(/TEMP B-TREE/);
    const stores = new Stores({ db, dataDir: dir, clock: new TestClock() });
    const U = { layer: 'user' as const, user_id: 'default' };
    for (const [key, importance] of [['a', 0.5], ['b', 0.9], ['c', 0.5], ['d', 0.9], ['e', 0.7]] as const) {
      stores.facts.upsert(U, { key, value: key, importance, source: 'manual' });
    }
    expect(stores.facts.list(U).map((f) => f.key)).toEqual(['d', 'b', 'e', 'c', 'a']);
    for (const [content, confidence] of [['n1', 0.4], ['n2', 0.8], ['n3', 0.4], ['n4', 0.8]] as const) {
      stores.graph.addNode(U, { content, node_type: 'fact', confidence });
    }
    expect(stores.graph.nodes(U).map((n) => n.content)).toEqual(['n4', 'n2', 'n3', 'n1']);
    db.close();
  });

  it('find the fact of a key family that holds a value through facts_value, not by reading the family', () => {
    const { db, migrateRest } = migratedTo(9);
    migrateRest();
    const detail = (db.prepare(`EXPLAIN QUERY PLAN SELECT key FROM facts WHERE layer = 'user' AND user_id = 'default' AND value = 'v'`).all() as { detail: string }[])
      .map((r) => r.detail)
      .join(' | ');
    expect(detail).toMatch(/USING INDEX facts_value \(layer=\? AND user_id=\? AND value=\?\)/);
    db.close();
  });

  it("purge a wiki page's history through wiki_page_versions_page, not by reading every user's versions", () => {
    const { db, migrateRest } = migratedTo(29);
    migrateRest();
    const detail = (db.prepare(`EXPLAIN QUERY PLAN DELETE FROM wiki_page_versions WHERE page_id = ?`).all('wiki_1') as { detail: string }[]).map((r) => r.detail).join(' | ');
    expect(detail).toMatch(/USING (COVERING )?INDEX wiki_page_versions_page \(page_id=\?\)/);
    db.close();
  });

  it("give the nightly runs recorded before nightly_scopes an empty plugin_scopes, and run again as a no-op", () => {
    const { dir, db, migrateRest } = migratedTo(20);
    db.prepare("INSERT INTO nightly_runs (trigger, started, ended, since, status) VALUES ('manual', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01.000Z', '0000-01-01T00:00:00.000Z', 'ok')").run();
    migrateRest();
    const stores = new Stores({ db, dataDir: dir, clock: new TestClock() });
    expect(stores.nightly.lastRun()).toMatchObject({ id: 'night_1', status: 'ok', plugin_scopes: [] });
    const again = storesMigrations.find((m) => m.name === 'stores_nightly_plugin_scopes')!;
    db.transaction(() => again.up(db)).immediate();
    expect((db.prepare('PRAGMA table_info(nightly_runs)').all() as { name: string }[]).filter((c) => c.name === 'plugin_scopes')).toHaveLength(1);
    db.close();
  });

  it('rewrite tags and counterfactual anchors stored decomposed to NFC (one tag of two spellings on a record), and fold graph de-duplication forms', () => {
    const { dir, db, migrateRest } = migratedTo(25);
    const C = 'caf\u00e9';
    const D = 'cafe\u0301';
    const ins = (sql: string, ...args: unknown[]) => Number(db.prepare(sql).run(...args).lastInsertRowid);
    const T = '2026-01-01T00:00:00.000Z';
    // An episode holding both spellings, one holding the decomposed one only; a page and a node tagged decomposed.
    const both = ins(`INSERT INTO episodes (layer, user_id, summary, tags, created) VALUES ('user', 'default', 'both', ?, ?)`, JSON.stringify([D, C, 'x']), T);
    const one = ins(`INSERT INTO episodes (layer, user_id, summary, tags, created) VALUES ('user', 'default', 'one', ?, ?)`, JSON.stringify([D]), T);
    for (const [id, tag] of [[both, D], [both, C], [both, 'x'], [one, D]] as const) {
      db.prepare(`INSERT INTO episode_tags (episode_id, layer, user_id, dimension, tag) VALUES (?, 'user', 'default', ?, ?)`).run(id, tag, tag);
    }
    ins(`INSERT INTO wiki_pages (layer, user_id, title, wiki_type, tags, path, content, created, updated, size) VALUES ('user', 'default', 'P', 'work_notes', ?, 'wiki/p.md', 'c', ?, ?, 1)`, JSON.stringify([D]), T, T);
    const node = ins(`INSERT INTO graph_nodes (layer, user_id, content, norm_content, node_type, tags, created) VALUES ('user', 'default', 'Stra\u00dfe AG', 'stra\u00dfe ag', 'organization', ?, ?)`, JSON.stringify([D]), T);
    db.prepare(`INSERT INTO graph_node_tags (node_id, layer, user_id, tag) VALUES (?, 'user', 'default', ?)`).run(node, D);
    ins(`INSERT INTO counterfactuals (layer, user_id, anchor, premise, projection, created) VALUES ('user', 'default', ?, 'p', 'q', ?)`, D, T);
    migrateRest();
    const stores = new Stores({ db, dataDir: dir, clock: new TestClock() });
    const U = { layer: 'user' as const, user_id: 'default' };
    expect(stores.episodes.get(U, `ep_${both}`)!.tags).toEqual([C, 'x']);
    expect(stores.episodes.get(U, `ep_${one}`)!.tags).toEqual([C]);
    expect(db.prepare('SELECT episode_id, dimension, tag FROM episode_tags ORDER BY episode_id, tag').all()).toEqual([
      { episode_id: both, dimension: C, tag: C },
      { episode_id: both, dimension: 'x', tag: 'x' },
      { episode_id: one, dimension: C, tag: C },
    ]);
    expect(stores.episodes.list(U, { tag: C }).map((e) => e.id).sort()).toEqual([`ep_${both}`, `ep_${one}`].sort());
    expect(stores.wiki.query(U, { tags: [C] }).pages.map((p) => p.title)).toEqual(['P']);
    expect(stores.graph.query(U, { tag: C }).map((n) => n.node_id)).toEqual([`node_${node}`]);
    expect(stores.graph.addNode(U, { content: 'STRASSE AG', node_type: 'organization' })).toMatchObject({ node_id: `node_${node}`, existed: true });
    expect(stores.counterfactuals.list(U, { anchor: C }).map((c) => c.anchor)).toEqual([C]);
    db.close();
  });

  it('rewrite graph node types and watch rule senders stored decomposed to NFC, and run again as a no-op', () => {
    const { dir, db, migrateRest } = migratedTo(26);
    const C = 'caf\u00e9';
    const D = 'cafe\u0301';
    const T = '2026-01-01T00:00:00.000Z';
    const ins = (sql: string, ...args: unknown[]) => Number(db.prepare(sql).run(...args).lastInsertRowid);
    const nfd = ins(`INSERT INTO graph_nodes (layer, user_id, content, norm_content, node_type, tags, created) VALUES ('user', 'default', 'Le Procope', 'le procope', ?, '[]', ?)`, D, T);
    const nfc = ins(`INSERT INTO graph_nodes (layer, user_id, content, norm_content, node_type, tags, created) VALUES ('user', 'default', 'Flore', 'flore', ?, '[]', ?)`, C, T);
    const rule = ins(`INSERT INTO watch_rules (layer, user_id, name, trigger, predicate, action, created, updated) VALUES ('user', 'default', 'zoe', 'new_message', ?, 'log', ?, ?)`, JSON.stringify({ keywords: [D], sender: 'Zoe\u0308' }), T, T);
    const bad = ins(`INSERT INTO watch_rules (layer, user_id, name, trigger, predicate, action, created, updated) VALUES ('user', 'default', 'bad', 'new_message', ?, 'log', ?, ?)`, '{not json \u00e9', T, T);
    migrateRest();
    const stores = new Stores({ db, dataDir: dir, clock: new TestClock() });
    const U = { layer: 'user' as const, user_id: 'default' };
    expect(stores.graph.query(U, { node_type: C }).map((n) => n.node_id).sort()).toEqual([`node_${nfd}`, `node_${nfc}`].sort());
    expect(db.prepare('SELECT DISTINCT node_type FROM graph_nodes').pluck(true).all()).toEqual([C]);
    // The sender in NFC; the keywords (matched folded) as they were.
    expect(stores.watchRules.get(U, `watch_${rule}`)!.predicate).toEqual({ keywords: [D], sender: 'Zo\u00eb' });
    expect(db.prepare('SELECT predicate FROM watch_rules WHERE id = ?').pluck(true).get(bad)).toBe('{not json \u00e9');
    const again = storesMigrations.find((m) => m.name === 'stores_name_forms')!;
    db.transaction(() => again.up(db)).immediate();
    expect(stores.watchRules.get(U, `watch_${rule}`)!.predicate.sender).toBe('Zo\u00eb');
    db.close();
  });

  it('rewrite watch rule names stored decomposed to NFC, keeping a name whose NFC form the scope holds, and run again as a no-op', () => {
    const { dir, db, migrateRest } = migratedTo(27);
    const T = '2026-01-01T00:00:00.000Z';
    const ins = (user: string, name: string) =>
      Number(db.prepare(`INSERT INTO watch_rules (layer, user_id, name, trigger, predicate, action, created, updated) VALUES ('user', ?, ?, 'new_message', '{}', 'note', ?, ?)`).run(user, name, T, T).lastInsertRowid);
    const lone = ins('default', 'Zoe\u0308');
    const nfc = ins('other', 'Caf\u00e9');
    const twin = ins('other', 'Cafe\u0301');
    const ascii = ins('default', 'plain');
    migrateRest();
    const name = (id: number) => db.prepare('SELECT name FROM watch_rules WHERE id = ?').pluck(true).get(id);
    expect([name(lone), name(nfc), name(twin), name(ascii)]).toEqual(['Zo\u00eb', 'Caf\u00e9', 'Cafe\u0301', 'plain']);
    const stores = new Stores({ db, dataDir: dir, clock: new TestClock() });
    // The NFD twin kept its form, yet still counts as that name: no third rule.
    expect(() => stores.watchRules.add({ layer: 'user', user_id: 'other' }, { name: 'Cafe\u0301', trigger: 'new_message', predicate: {}, action: 'log' })).toThrow(/exists/);
    const again = storesMigrations.find((m) => m.name === 'stores_watch_rule_names')!;
    db.transaction(() => again.up(db)).immediate();
    expect([name(lone), name(twin)]).toEqual(['Zo\u00eb', 'Cafe\u0301']);
    db.close();
  });

  it('rewrite disclosure rule names stored decomposed to NFC, keeping a name whose NFC form the scope holds, and run again as a no-op', () => {
    const { dir, db, migrateRest } = migratedTo(28);
    const T = '2026-01-01T00:00:00.000Z';
    const ins = (user: string, name: string) =>
      Number(
        db
          .prepare(`INSERT INTO disclosure_rules (layer, user_id, name, trigger_keywords, content, created, updated) VALUES ('user', ?, ?, '["coffee"]', 'c', ?, ?)`)
          .run(user, name, T, T).lastInsertRowid,
      );
    const lone = ins('default', 'Zoe\u0308');
    const kelvin = ins('default', '\u212a2');
    const nfc = ins('other', 'Caf\u00e9');
    const twin = ins('other', 'Cafe\u0301');
    const ascii = ins('default', 'plain');
    migrateRest();
    const name = (id: number) => db.prepare('SELECT name FROM disclosure_rules WHERE id = ?').pluck(true).get(id);
    expect([name(lone), name(kelvin), name(nfc), name(twin), name(ascii)]).toEqual(['Zo\u00eb', 'K2', 'Caf\u00e9', 'Cafe\u0301', 'plain']);
    const stores = new Stores({ db, dataDir: dir, clock: new TestClock() });
    const add = (user_id: string, n: string) => () => stores.disclosure.add({ layer: 'user', user_id }, { name: n, trigger_keywords: ['x'], content: 'c' });
    // Found by the NFC name, however the caller sends it; the NFD twin kept its form, yet still counts as that name: no third rule.
    expect(add('default', 'Zoe\u0308')).toThrow(/already exists/);
    expect(add('default', 'K2')).toThrow(/already exists/);
    expect(add('other', 'Cafe\u0301')).toThrow(/already exists/);
    expect(stores.disclosure.list({ layer: 'user', user_id: 'other' })).toHaveLength(2);
    const again = storesMigrations.find((m) => m.name === 'stores_disclosure_rule_names')!;
    db.transaction(() => again.up(db)).immediate();
    expect([name(lone), name(twin)]).toEqual(['Zo\u00eb', 'Cafe\u0301']);
    db.close();
  });
});
