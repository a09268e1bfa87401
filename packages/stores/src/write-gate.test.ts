import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeEnv, recordingLogger, U, A, type Env, type RecordingLogger } from './test-helpers.js';
import { matchWriteGate, parseWriteGateRules, WRITE_GATE_RECHECK_MS } from './write-gate.js';

let env: Env;
beforeEach(() => {
  env = makeEnv();
});
afterEach(() => env.close());

function writeRules(text: string, mtimeSec?: number): void {
  const file = path.join(env.dir, 'rules.yaml');
  fs.writeFileSync(file, text);
  if (mtimeSec !== undefined) fs.utimesSync(file, mtimeSec, mtimeSec);
}

describe('parseWriteGateRules', () => {
  it('accepts a list or a rules mapping, a phrase or a list of phrases', () => {
    const a = parseWriteGateRules('- when_content_contains: deadline\n  importance_boost: 0.1\n  tags: [work]\n');
    expect(a.errors).toEqual([]);
    expect(a.rules).toEqual([{ index: 0, name: 'rule_0', when_content_contains: ['deadline'], importance_boost: 0.1, tags: ['work'] }]);
    const b = parseWriteGateRules('rules:\n  - name: health\n    when_content_contains: [doctor, allergy]\n    importance_boost: 0.2\n');
    expect(b.rules[0]).toMatchObject({ name: 'health', when_content_contains: ['doctor', 'allergy'], importance_boost: 0.2, tags: [] });
    expect(parseWriteGateRules('')).toEqual({ rules: [], errors: [] });
  });

  it('names the rule index and field of each problem, and takes no rule of a bad file', () => {
    const r = parseWriteGateRules(
      '- when_content_contains: ok\n  importance_boost: 0.1\n- when_content_contains: []\n- when_content_contains: x\n  importance_boost: 2\n- when_content_contains: y\n  colour: red\n- when_content_contains: z\n  tags: [1]\n',
    );
    expect(r.rules).toEqual([]);
    expect(r.errors.map((e) => [e.index, e.field])).toEqual([
      [1, 'when_content_contains'],
      [2, 'importance_boost'],
      [3, 'colour'],
      [4, 'tags'],
    ]);
    expect(parseWriteGateRules('rules: [').errors[0]).toMatchObject({ index: null, field: 'file' });
    expect(parseWriteGateRules('rules: 3').errors[0]).toMatchObject({ index: null, field: 'rules' });
    expect(parseWriteGateRules('other: []').errors[0]).toMatchObject({ index: null, field: 'other' });
    expect(parseWriteGateRules('- 5').errors[0]).toMatchObject({ index: 0, field: 'rule' });
  });

  it('refuses a tag holding an invisible format character (episodes refuse it), and takes tags in NFC', () => {
    const bad = parseWriteGateRules('- when_content_contains: x\n  tags: ["wo\\u200brk"]\n');
    expect(bad.rules).toEqual([]);
    expect(bad.errors[0]).toMatchObject({ index: 0, field: 'tags', message: expect.stringMatching(/invisible format character/) });
    expect(parseWriteGateRules('- when_content_contains: x\n  tags: ["cafe\\u0301"]\n').rules[0]!.tags).toEqual(['caf\u00e9']);
  });
});

describe('matchWriteGate', () => {
  it('sums the boosts of matching rules (case-insensitive substrings, any phrase), capped at 0.3, and collects their tags', () => {
    const { rules } = parseWriteGateRules(
      '- {name: a, when_content_contains: [Deadline], importance_boost: 0.2, tags: [work]}\n- {name: b, when_content_contains: [friday, deadline], importance_boost: 0.15, tags: [work, week]}\n- {name: c, when_content_contains: holiday, importance_boost: 0.1, tags: [rest]}\n',
    );
    expect(matchWriteGate(rules, 'The DEADLINE is near')).toEqual({ boost: 0.3, tags: ['work', 'week'], matched: ['a', 'b'] });
    expect(matchWriteGate(rules, 'see you friday')).toEqual({ boost: 0.15, tags: ['work', 'week'], matched: ['b'] });
    expect(matchWriteGate(rules, 'nothing here')).toEqual({ boost: 0, tags: [], matched: [] });
  });

  // Phrases were matched by lower case alone, while watch and disclosure keywords, dream and forget
  // fold: a decomposed "café", "İSTANBUL" or "STRASSE" missed the rule that those all matched.
  it('matches phrases folded as watch keywords are: NFC and NFD, case, accents, Turkish capital I with dot, sharp s', () => {
    const { rules } = parseWriteGateRules(
      '- {name: cafe, when_content_contains: "caf\u00e9", importance_boost: 0.1, tags: [food]}\n' +
        '- {name: ist, when_content_contains: istanbul, importance_boost: 0.1, tags: [trip]}\n' +
        '- {name: street, when_content_contains: "Stra\u00dfe", importance_boost: 0.1, tags: [home]}\n' +
        '- {name: mark, when_content_contains: "\u0301", importance_boost: 0.1, tags: [mark]}\n',
    );
    expect(rules).toHaveLength(4);
    const matched = (text: string) => matchWriteGate(rules, text).matched;
    expect(matched('the cafe\u0301 on the corner')).toEqual(['cafe']);
    expect(matched('the CAF\u00c9 on the corner')).toEqual(['cafe']);
    expect(matched('trip to \u0130STANBUL')).toEqual(['ist']);
    expect(matched('lives on HAUPTSTRASSE')).toEqual(['street']);
    expect(matched('the road')).toEqual([]);
    // A phrase that folds to nothing is in no text (a lone accent is in every decomposed one).
    expect(matched('cafe\u0301')).toEqual(['cafe']);
  });
});

describe('WriteGate', () => {
  it('reads rules.yaml, caches it by modification time, and reloads on demand', () => {
    const gate = env.stores.writeGate;
    expect(gate.ruleset(0)).toMatchObject({ exists: false, rules: [], errors: [], in_force: 'none', mtime: null });
    writeRules('- {when_content_contains: urgent, importance_boost: 0.2}\n', 1_700_000_000);
    expect(gate.ruleset(0)).toMatchObject({ exists: true, in_force: 'file', mtime: new Date(1_700_000_000_000).toISOString() });
    expect(gate.boosted(0.5, 'urgent: fix prod')).toBe(0.7);
    // Same size, same mtime: the cached ruleset stays (the file is not read again).
    writeRules('- {when_content_contains: urgenT, importance_boost: 0.1}\n', 1_700_000_000);
    expect(gate.ruleset(0).rules[0]!.importance_boost).toBe(0.2);
    expect(gate.reload().rules[0]!.importance_boost).toBe(0.1);
    // A new modification time is noticed without reload.
    writeRules('- {when_content_contains: urgent, importance_boost: 0.25}\n', 1_700_000_100);
    expect(gate.ruleset(0).rules[0]!.importance_boost).toBe(0.25);
    expect(gate.boosted(0.9, 'urgent')).toBe(1);
  });

  it('keeps the last good ruleset in force while the file is bad, and reports the problem', () => {
    const gate = env.stores.writeGate;
    writeRules('- {when_content_contains: urgent, importance_boost: 0.2}\n', 1_700_000_000);
    expect(gate.ruleset(0).in_force).toBe('file');
    writeRules('- {when_content_contains: urgent, importance_boost: -1}\n', 1_700_000_050);
    const bad = gate.ruleset(0);
    expect(bad.in_force).toBe('previous');
    expect(bad.errors).toEqual([{ index: 0, field: 'importance_boost', message: expect.any(String) }]);
    expect(bad.rules[0]!.importance_boost).toBe(0.2);
    expect(gate.evaluate('urgent').boost).toBe(0.2);
    fs.rmSync(path.join(env.dir, 'rules.yaml'));
    expect(gate.ruleset(0)).toMatchObject({ exists: false, rules: [], in_force: 'none' });
  });

  it('says in its warning whether the previous ruleset stays in force or no rule is', () => {
    const logger: RecordingLogger = recordingLogger();
    env.close();
    env = makeEnv({}, logger);
    const gate = env.stores.writeGate;
    writeRules('- {when_content_contains: urgent, file: x}\n', 1_700_000_000);
    expect(gate.ruleset(0).in_force).toBe('none');
    const first = logger.lines.filter((l) => l.level === 'warn').at(-1)!.message;
    expect(first).toMatch(/rules\.yaml is invalid \(1 problem\(s\), first: rule 0 field file\); no rules are in force/);
    expect(first).not.toMatch(/previous/);
    writeRules('- {when_content_contains: urgent, importance_boost: 0.2}\n', 1_700_000_050);
    expect(gate.ruleset(0).in_force).toBe('file');
    writeRules('- {when_content_contains: urgent, file: x}\n', 1_700_000_100);
    expect(gate.ruleset(0).in_force).toBe('previous');
    expect(logger.lines.at(-1)!.message).toMatch(/; the previous ruleset \(1 rule\(s\)\) stays in force$/);
  });

  it('lets writes trust the last look at the file for WRITE_GATE_RECHECK_MS, while a look asked for now sees an edit at once', () => {
    const gate = env.stores.writeGate;
    let now = 1_000;
    const clock = vi.spyOn(performance, 'now').mockImplementation(() => now);
    try {
      writeRules('- {when_content_contains: urgent, importance_boost: 0.2}\n', 1_700_000_000);
      expect(gate.boosted(0.5, 'urgent')).toBe(0.7);
      writeRules('- {when_content_contains: urgent, importance_boost: 0.1}\n', 1_700_000_100);
      // A write within the window does not look at the file again.
      now += WRITE_GATE_RECHECK_MS - 1;
      expect(gate.boosted(0.5, 'urgent')).toBe(0.7);
      // Once the window has passed, the next write looks and takes the edit.
      now += 1;
      expect(gate.boosted(0.5, 'urgent')).toBe(0.6);
      writeRules('- {when_content_contains: urgent, importance_boost: 0.3}\n', 1_700_000_200);
      expect(gate.ruleset(0).rules[0]!.importance_boost).toBe(0.3);
      expect(gate.boosted(0.5, 'urgent')).toBe(0.8);
    } finally {
      clock.mockRestore();
    }
  });

  it('applies the boost and tags to an episode, logging the importance change', () => {
    writeRules('- {when_content_contains: launch, importance_boost: 0.2, tags: [milestone]}\n');
    const ep = env.stores.episodes.add(U, { summary: 'We launch on Monday', importance: 0.4, tags: ['thought'] });
    const other = env.stores.episodes.add(A, { summary: 'nothing to see', importance: 0.4 });
    const r = env.stores.writeGate.applyToEpisode(U, ep.id);
    expect(r?.episode).toMatchObject({ importance: 0.6, tags: ['thought', 'milestone'] });
    expect(env.stores.audit.history(ep.id)).toEqual([expect.objectContaining({ old: 0.4, new: 0.6, reason: 'write_gate' })]);
    expect(env.stores.writeGate.applyToEpisode(A, other.id)).toBeNull();
    expect(env.stores.writeGate.applyToEpisode(A, ep.id)).toBeNull();
    expect(env.stores.episodes.get(A, other.id)).toMatchObject({ importance: 0.4, tags: [] });
  });
});
