import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXPORTS_DIR } from './scope-data.js';
import { U, makeEnv, type Env } from './test-helpers.js';

let env: Env;
let other: Env;
beforeEach(() => {
  env = makeEnv();
  other = makeEnv();
});
afterEach(() => {
  env.close();
  other.close();
});

const T1 = '2020-03-04T05:06:07.000Z';
const T2 = '2021-08-09T10:11:12.000Z';

/** A scope of every core kind, written through the stores at distinct times. */
function seed(e: Env) {
  const s = e.stores;
  s.facts.upsert(U, { key: 'city', value: 'Lyon', importance: 0.8, source: 'user_explicit', metadata: { origin: 'test' } });
  e.clock.advance(1000);
  s.episodes.add(U, { summary: 'Hiked the Vercors', tags: ['trip', 'mood:happy'], emotional_weight: 0.7, context: 'before', meta: { k: 1 } });
  e.clock.advance(1000);
  s.wiki.save(U, { title: 'Trips', content: '# Trips\nVercors', wiki_type: 'diary', tags: ['travel'] });
  s.wiki.save(U, { title: 'Review', content: 'good', wiki_type: 'retrospective' });
  s.wiki.link(U, 'Review', 'Trips', 'review_of');
  const a = s.graph.addNode(U, { content: 'Ana', node_type: 'person' });
  const b = s.graph.addNode(U, { content: 'Lyon', node_type: 'place', tags: ['city'] });
  s.graph.addEdge(U, { from: a.node_id, to: b.node_id, relation: 'mentions', strength: 0.4 });
  e.clock.advance(1000);
  s.timeline.add(U, { type: 'thought', summary: 'thinking', metadata: { training_value: 'high' } });
  s.scratchpad.write(U, 'todo', 'pack');
}

describe('memory_data import: times at insert, one check, the file read', () => {
  it('the stores write a record at the time given (episodes, graph nodes, timeline events, a new fact), and at now without one', () => {
    const s = env.stores;
    expect(s.episodes.add(U, { summary: 'old one' }, T1).created).toBe(T1);
    expect(s.graph.addNode(U, { content: 'old node', node_type: 'note' }, T1).created).toBe(T1);
    expect(s.timeline.add(U, { type: 'note', summary: 'old event' }, T1).created).toBe(T1);
    const f = s.facts.upsert(U, { key: 'old', value: 'v' }, 'upsert', { created: T1, updated: T2 });
    expect([f.created, f.updated]).toEqual([T1, T2]);
    // An update is at now, whatever times are given: they are a new fact's.
    const now = env.stores.ctx.iso();
    const g = s.facts.upsert(U, { key: 'old', value: 'w' }, 'upsert', { created: T2, updated: T2 });
    expect([g.created, g.updated]).toEqual([T1, now]);
    expect(s.episodes.add(U, { summary: 'new one' }).created).toBe(now);
    // The version of the new fact is at the time it was written, not the fact's created.
    expect(env.db.prepare("SELECT ts FROM fact_versions WHERE key = 'old' ORDER BY id").pluck(true).all()).toEqual([now, now]);
  });

  it('export, import into another data dir, export again: the same JSON byte for byte (but exported_at)', () => {
    seed(env);
    const first = env.stores.scopeData.exportScope(U);
    other.clock.advance(86_400_000);
    const res = other.stores.ctx.tx(() => other.stores.scopeData.importScope(U, JSON.parse(JSON.stringify(first)), 'merge'));
    expect(Object.values(res.skipped).every((n) => n === 0)).toBe(true);
    const again = other.stores.scopeData.exportScope(U);
    expect(JSON.stringify({ ...again, exported_at: null })).toBe(JSON.stringify({ ...first, exported_at: null }));
    // And the page files hold the same text (written after the commit, a slice at a time; flush finishes them).
    other.stores.flush();
    for (const p of first.wiki_pages) expect(fs.readFileSync(path.join(other.dir, p.path!), 'utf8')).toBe(fs.readFileSync(path.join(env.dir, p.path!), 'utf8'));
  });

  it('check answers a document it checked as it is (importScope does not check it again), and checks any other', () => {
    seed(env);
    const sd = env.stores.scopeData;
    const input = JSON.parse(JSON.stringify(sd.exportScope(U)));
    const doc = sd.check(input);
    expect(doc).not.toBe(input);
    expect(sd.check(doc)).toBe(doc);
    expect(sd.check(JSON.parse(JSON.stringify(doc)))).not.toBe(doc);
  });

  it('readFileAsync answers what readFile does, and refuses the same files naming the field', async () => {
    seed(env);
    const sd = env.stores.scopeData;
    const { file } = sd.writeFile(sd.exportScope(U));
    expect(await sd.readFileAsync(file)).toEqual(sd.readFile(file));
    fs.writeFileSync(path.join(env.dir, EXPORTS_DIR, 'broken.json'), '{"format": ');
    for (const name of ['../memory.db', 'missing.json', 'broken.json']) {
      let sync: unknown;
      try {
        sd.readFile(name, 'file');
      } catch (err) {
        sync = err;
      }
      expect(sync, name).toMatchObject({ field: 'file' });
      await expect(sd.readFileAsync(name, 'file'), name).rejects.toMatchObject({ field: 'file', message: (sync as Error).message });
    }
  });
});
