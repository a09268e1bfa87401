import { describe, expect, it } from 'vitest';
import { extractRelation, RELATION_MAX_CHARS, RELATION_SCAN_CHARS, RELATION_SCAN_SENTENCES } from './relation.js';

describe('extractRelation', () => {
  it('extracts "X is Y"', () => {
    expect(extractRelation('Alice is my sister.')).toEqual({ subject: 'Alice', relation: 'is', object: 'my sister' });
  });

  it('extracts "X is related to Y" and "X is connected to Y"', () => {
    expect(extractRelation('Project Apollo is related to the Mars mission')).toEqual({
      subject: 'Project Apollo',
      relation: 'related_to',
      object: 'the Mars mission',
    });
    expect(extractRelation('The auth service is connected to Redis!')).toEqual({
      subject: 'The auth service',
      relation: 'connected_to',
      object: 'Redis',
    });
  });

  it('takes the clause after a leading comma and the first matching sentence', () => {
    expect(extractRelation('Honestly, Bob is my manager')).toEqual({ subject: 'Bob', relation: 'is', object: 'my manager' });
    expect(extractRelation('Good morning. Kafka is our event bus. Thanks')).toEqual({
      subject: 'Kafka',
      relation: 'is',
      object: 'our event bus',
    });
  });

  it('returns null for questions', () => {
    expect(extractRelation('Alice is my sister?')).toBeNull();
    expect(extractRelation('What is Kafka')).toBeNull();
    expect(extractRelation('Is Alice related to Bob?')).toBeNull();
  });

  it('extracts "X related to Y" and "X connected to Y", with or without is/are/was', () => {
    expect(extractRelation('Alice related to Bob')).toEqual({ subject: 'Alice', relation: 'related_to', object: 'Bob' });
    expect(extractRelation('Alice connected to Bob')).toEqual({ subject: 'Alice', relation: 'connected_to', object: 'Bob' });
    expect(extractRelation('Alice and Carol are related to Bob')).toEqual({ subject: 'Alice and Carol', relation: 'related_to', object: 'Bob' });
    expect(extractRelation('The old server was connected to the VPN.')).toEqual({ subject: 'The old server', relation: 'connected_to', object: 'the VPN' });
    expect(extractRelation('It related to Bob')).toBeNull();
    expect(extractRelation('Alice related to nothing at all in the whole wide world')).toBeNull();
  });

  // Pinned the old rule that a text of 200 characters or more is never scanned (changed on purpose):
  // a long thought is now scanned sentence by sentence, up to RELATION_SCAN_SENTENCES sentences.
  it('scans the first sentences of a long text; a sentence of 200 characters or more is skipped', () => {
    const long = 'Alice is my sister. ' + 'filler words here '.repeat(12);
    expect(long.trim().length).toBeGreaterThanOrEqual(RELATION_MAX_CHARS);
    expect(extractRelation(long)).toEqual({ subject: 'Alice', relation: 'is', object: 'my sister' });
    const paris = `Paris is the capital of France. ${'We walked along the river and talked about the weather and the food for hours. '.repeat(3)}`;
    expect(paris.length).toBeGreaterThan(200);
    expect(extractRelation(paris)).toEqual({ subject: 'Paris', relation: 'is', object: 'the capital of France' });
    expect(extractRelation(`${'word '.repeat(45)}and then Alice is my sister`)).toBeNull();
  });

  it('scans at most RELATION_SCAN_SENTENCES sentences within RELATION_SCAN_CHARS', () => {
    const filler = (n: number) => 'We talked for hours. '.repeat(n);
    expect(extractRelation(`${filler(RELATION_SCAN_SENTENCES - 1)}Kafka is our event bus.`)).not.toBeNull();
    expect(extractRelation(`${filler(RELATION_SCAN_SENTENCES)}Kafka is our event bus.`)).toBeNull();
    const far = `${'x'.repeat(RELATION_SCAN_CHARS)}. Kafka is our event bus.`;
    expect(extractRelation(far)).toBeNull();
    // A sentence the bound cuts is not read: it could end mid-word.
    const cut = `${'y'.repeat(RELATION_SCAN_CHARS - 28)}. Paris is the capital of France`;
    expect(extractRelation(cut.slice(-30))).not.toBeNull();
    expect(extractRelation(cut)).toBeNull();
  });

  it('enforces 1..6 words and a subject starting with a letter', () => {
    expect(extractRelation('Alice is the one who lives in the blue house')).toBeNull();
    expect(extractRelation('The old red barn by the river is gone')).toBeNull();
    expect(extractRelation('42 is the answer')).toBeNull();
    expect(extractRelation('The build uses make')).toBeNull();
    expect(extractRelation('')).toBeNull();
  });

  it('rejects pronoun subjects, negations and secrets', () => {
    expect(extractRelation('It is raining')).toBeNull();
    expect(extractRelation('He is my brother')).toBeNull();
    expect(extractRelation('Alice is not my sister')).toBeNull();
    expect(extractRelation('my password is hunter2')).toBeNull();
  });

  it('is deterministic', () => {
    expect(extractRelation('Rome is the capital')).toEqual(extractRelation('Rome is the capital'));
  });
});
