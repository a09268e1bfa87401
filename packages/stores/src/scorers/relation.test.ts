import { describe, expect, it } from 'vitest';
import { extractRelation, RELATION_MAX_CHARS } from './relation.js';

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

  it('returns null for long texts', () => {
    const long = 'Alice is my sister. ' + 'filler words here '.repeat(12);
    expect(long.trim().length).toBeGreaterThanOrEqual(RELATION_MAX_CHARS);
    expect(extractRelation(long)).toBeNull();
    expect(extractRelation('Alice is my sister. ' + 'x'.repeat(150))).not.toBeNull();
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
