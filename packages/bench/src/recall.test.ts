import { describe, expect, it } from 'vitest';
import { cleanEvidence, parseConversation, parseLocomoFile } from './locomo.js';
import { rankTurns, recallAt, scoreQuestion, summarizeByCategory, summarizeRecall, TurnMap } from './recall.js';

describe('TurnMap and rankTurns', () => {
  it('maps hits to turns by (store, id), dedupes turns keeping the first rank, drops unknown hits', () => {
    const map = new TurnMap();
    map.record('D1:1', [
      { store: 'l1', id: 'x' },
      { store: 'l3', id: 'e1' },
      { store: 'graph', id: 'n1' },
    ]);
    map.record('D1:2', [{ store: 'l3', id: 'e2' }, { store: 'timeline', id: 't2' }]);
    map.record('D1:3', [{ store: 'wiki', id: 'w1' }, { store: 'graph', id: 'n1' }]);
    expect(map.shared).toBe(1);
    const ranked = rankTurns(
      [
        { source: 'graph', id: 'n1' },
        { source: 'l3', id: 'e2' },
        { source: 'l3', id: 'e1' },
        { source: 'l4', id: 'e1' },
        { source: 'wiki', id: 'w1' },
        { source: 'l3', id: 'missing' },
      ],
      map,
    );
    expect(ranked).toEqual(['D1:1', 'D1:2', 'D1:3']);
  });

  it('never maps through l1 or timeline records', () => {
    const map = new TurnMap();
    map.record('D1:1', [{ store: 'l1', id: 'a' }, { store: 'timeline', id: 'b' }]);
    expect(map.size).toBe(0);
    expect(rankTurns([{ source: 'l1', id: 'a' }], map)).toEqual([]);
  });
});

describe('recallAt', () => {
  it('is the share of distinct evidence turns within the first K turns', () => {
    const ranked = ['D1:1', 'D1:2', 'D1:3', 'D2:1', 'D2:2', 'D2:3'];
    expect(recallAt(ranked, ['D1:2'], 5)).toBe(1);
    expect(recallAt(ranked, ['D2:3'], 5)).toBe(0);
    expect(recallAt(ranked, ['D1:1', 'D2:3'], 5)).toBe(0.5);
    expect(recallAt(ranked, ['D1:1', 'D1:1', 'D2:3'], 10)).toBe(1);
    expect(() => recallAt(ranked, [], 5)).toThrow();
  });

  it('uses prefixes of one ranking for every K and averages per category', () => {
    const ranked = Array.from({ length: 20 }, (_, i) => `D1:${i + 1}`);
    const a = scoreQuestion(1, ranked, ['D1:3', 'D1:8']);
    expect(a.recall).toEqual({ 5: 0.5, 10: 1, 20: 1 });
    const b = scoreQuestion(4, ranked, ['D1:15']);
    expect(b.recall).toEqual({ 5: 0, 10: 0, 20: 1 });
    const all = summarizeRecall([a, b]);
    expect(all).toEqual({ 'recall@5': 0.25, 'recall@10': 0.5, 'recall@20': 1, questions: 2 });
    const byCat = summarizeByCategory([a, b]);
    expect(Object.keys(byCat)).toEqual(['1', '4']);
    expect(byCat['4']['recall@20']).toBe(1);
  });
});

describe('evidence cleaning', () => {
  const known = new Set(['D8:6', 'D9:17', 'D1:3']);

  it('splits several ids in one string and keeps those that name a turn', () => {
    const unknown: string[] = [];
    expect(cleanEvidence(['D8:6; D9:17', 'D1:3', 'D1:3', 'D99:1', 'D1:03'], known, unknown)).toEqual(['D8:6', 'D9:17', 'D1:3']);
    expect(unknown).toEqual(['D99:1']);
    expect(cleanEvidence(['D8:6,D9:17 D1:3'], known)).toEqual(['D8:6', 'D9:17', 'D1:3']);
    expect(cleanEvidence(undefined, known)).toEqual([]);
  });

  it('skips questions left without evidence and those outside categories 1-4', () => {
    const conv = parseConversation(
      {
        speaker_a: 'Ann',
        session_2: [{ speaker: 'Bob', dia_id: 'D2:1', text: 'Later.' }],
        session_1: [
          { speaker: 'Ann', dia_id: 'D1:1', text: 'Hi!' },
          { speaker: 'Bob', dia_id: 'D1:2', text: 'Look.', blip_caption: 'a photo of a dog' },
        ],
        session_1_date_time: '1 May 2023',
        qa: [
          { question: 'q1', category: 4, evidence: ['D1:2; D2:1'] },
          { question: 'q2', category: 3, evidence: [] },
          { question: 'q3', category: 2, evidence: ['D7:7'] },
          { question: 'q4', category: 5, evidence: ['D1:1'] },
        ],
      },
      'tiny',
    );
    expect(conv.turns.map((t) => t.diaId)).toEqual(['D1:1', 'D1:2', 'D2:1']);
    expect(conv.turns[1].text).toBe('Bob: Look. [image: a photo of a dog]');
    expect(conv.turns[0].text).toBe('Ann: Hi!');
    expect(conv.questions).toEqual([{ question: 'q1', category: 4, evidence: ['D1:2', 'D2:1'] }]);
    expect(conv.skippedQuestions).toBe(2);
    expect(conv.unknownEvidence).toEqual(['D7:7']);
  });

  it('orders sessions numerically and reads the released {conversation, qa} shape', () => {
    const turns: Record<string, unknown> = {};
    for (const n of [10, 2, 1]) turns[`session_${n}`] = [{ speaker: 'A', dia_id: `D${n}:1`, text: `s${n}` }];
    const conv = parseConversation({ conversation: turns, qa: [] }, 'shape');
    expect(conv.turns.map((t) => t.diaId)).toEqual(['D1:1', 'D2:1', 'D10:1']);
  });

  it('reads a file holding a list of samples (the released locomo10.json) as one conversation each', () => {
    const sample = (n: number, id?: string) => ({
      ...(id === undefined ? {} : { sample_id: id }),
      conversation: { session_1: [{ speaker: 'A', dia_id: 'D1:1', text: `turn of ${n}` }] },
      qa: [{ question: `q${n}`, category: 4, evidence: ['D1:1'] }],
    });
    const convs = parseLocomoFile([sample(1, 'conv-41'), sample(2), sample(3, ' ')], 'locomo10');
    expect(convs.map((c) => c.name)).toEqual(['conv-41', 'locomo10#2', 'locomo10#3']);
    expect(convs.map((c) => c.turns[0].text)).toEqual(['A: turn of 1', 'A: turn of 2', 'A: turn of 3']);
    expect(convs.map((c) => c.questions.length)).toEqual([1, 1, 1]);
    expect(parseLocomoFile(sample(4, 'conv-50'), 'conv-50').map((c) => c.name)).toEqual(['conv-50']);
    expect(() => parseLocomoFile([sample(1), 'not a sample'], 'mixed')).toThrow(/mixed#2: expected a JSON object/);
  });
});
