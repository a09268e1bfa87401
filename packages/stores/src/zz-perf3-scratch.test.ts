import { it } from 'vitest';
import { makeEnv, U } from './test-helpers.js';
import { candidateIds } from './retrieval/candidates.js';
import { porterStem } from './retrieval/stemmer.js';
import { queryTerms } from './retrieval/query.js';

const WORDS = 'apple river mountain camping painting support group kids school music guitar concert travel paris beach dog cat adoption career job interview friend family birthday cake garden flower book novel movie running marathon yoga photography hiking lake sunrise festival volunteer charity pottery workshop painting sculpture museum history science math code bug deploy server database query index memory'.split(' ');
function rnd(seed: number) { let s = seed; return () => { s = (s * 1103515245 + 12345) & 0x7fffffff; return s / 0x7fffffff; }; }

it('perf3', () => {
  const env = makeEnv();
  const r = rnd(42);
  const speakers = ['Caroline', 'Melanie', 'John', 'Maria'];
  for (let b = 0; b < 100; b++) {
    env.stores.transaction(() => {
      for (let i = 0; i < 1000; i++) {
        const n = 8 + Math.floor(r() * 20);
        const ws: string[] = [];
        for (let k = 0; k < n; k++) ws.push(r() < 0.5 ? ['i', 'the', 'a', 'was', 'to', 'and', 'my', 'we'][Math.floor(r() * 8)] : WORDS[Math.floor(r() * WORDS.length)] + (r() < 0.3 ? 's' : ''));
        env.stores.episodes.add(U, { summary: `${speakers[Math.floor(r() * 4)]}: ${ws.join(' ')}`, importance: r(), tags: ['chat'] });
      }
    });
  }
  const time = (label: string, fn: () => unknown) => { fn(); const t0 = performance.now(); for (let i = 0; i < 20; i++) fn(); console.log(label, ((performance.now() - t0) / 20).toFixed(2)); };
  const q = 'When did Caroline go to the support group?';
  const terms = queryTerms(q).map((w) => ({ word: w, stem: porterStem(w) }));
  const src = { fts: 'episodes_fts', table: 'episodes', weights: [1, 0.3] };
  time('candidates l3', () => candidateIds(env.stores.ctx, { source: src, terms, layer: 'user', userId: 'default', pool: 50 }));
  time('count AND', () => env.db.prepare('SELECT count(*) FROM episodes_fts WHERE episodes_fts MATCH ?').get('"caroline" AND "support" AND "group"'));
  time('count AND2', () => env.db.prepare('SELECT count(*) FROM episodes_fts WHERE episodes_fts MATCH ?').get('"support" AND "group"'));
  time('rank AND', () => env.db.prepare('SELECT rowid FROM episodes_fts WHERE episodes_fts MATCH ? ORDER BY bm25(episodes_fts, 1.0, 0.3), rowid LIMIT 100').all('"caroline" AND "support" AND "group"'));
  time('newest', () => env.db.prepare('SELECT rowid FROM episodes_fts WHERE episodes_fts MATCH ? ORDER BY rowid DESC LIMIT 100').all('"support"'));
  time('search full', () => env.stores.retrieval.search(U, q));
  time('search l3', () => env.stores.retrieval.search(U, q, { sources: ['l3'] }));
  console.log(env.db.prepare('SELECT count(*) AS n FROM episodes_fts WHERE episodes_fts MATCH ?').get('"caroline" AND "support" AND "group"'));
  env.close();
}, 600_000);
