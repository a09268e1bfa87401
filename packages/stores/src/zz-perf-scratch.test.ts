import { it } from 'vitest';
import { makeEnv, U } from '/work/main/packages/stores/src/test-helpers.js';

const WORDS = 'apple river mountain camping painting support group kids school music guitar concert travel paris beach dog cat adoption career job interview friend family birthday cake garden flower book novel movie running marathon yoga photography hiking lake sunrise festival volunteer charity pottery workshop painting sculpture museum history science math code bug deploy server database query index memory'.split(' ');
function rnd(seed: number) { let s = seed; return () => { s = (s * 1103515245 + 12345) & 0x7fffffff; return s / 0x7fffffff; }; }

it('perf', () => {
  const env = makeEnv();
  const r = rnd(42);
  const speakers = ['Caroline', 'Melanie', 'John', 'Maria'];
  let t0 = performance.now();
  const N = 100_000;
  for (let b = 0; b < N / 1000; b++) {
    env.stores.transaction(() => {
      for (let i = 0; i < 1000; i++) {
        const n = 8 + Math.floor(r() * 20);
        const ws: string[] = [];
        for (let k = 0; k < n; k++) ws.push(r() < 0.5 ? ['i', 'the', 'a', 'was', 'to', 'and', 'my', 'we'][Math.floor(r() * 8)] : WORDS[Math.floor(r() * WORDS.length)] + (r() < 0.3 ? 's' : ''));
        env.stores.episodes.add(U, { summary: `${speakers[Math.floor(r() * 4)]}: ${ws.join(' ')}`, importance: r(), tags: ['chat'] });
      }
    });
  }
  console.log('bulk insert ms', performance.now() - t0);
  // single writes
  t0 = performance.now();
  for (let i = 0; i < 1000; i++) env.stores.episodes.add(U, { summary: `Caroline: single write number ${i} about guitar`, importance: 0.5 });
  console.log('single episode write ms avg', (performance.now() - t0) / 1000);
  t0 = performance.now();
  for (let i = 0; i < 1000; i++) env.stores.facts.upsert(U, { key: `k${i}`, value: `fact number ${i} about dogs` });
  console.log('single fact write ms avg', (performance.now() - t0) / 1000);
  const qs = ['When did Caroline go to the support group?', 'What instrument does Melanie play at the concert?', 'Where did John travel for his birthday?', 'What does Maria like about pottery workshops and museum history?', 'apple'];
  for (const q of qs) env.stores.retrieval.search(U, q);
  for (const q of qs) {
    t0 = performance.now();
    const reps = 20;
    for (let i = 0; i < reps; i++) env.stores.retrieval.search(U, q, { limit: 10 });
    console.log('search ms', ((performance.now() - t0) / reps).toFixed(2), q);
  }
  env.close();
}, 600_000);
