import { describe, expect, it } from 'vitest';
import { scoreAgentVoice } from './agent-voice.js';

describe('scoreAgentVoice', () => {
  it('classifies the assistant speaking about itself as agent', () => {
    for (const text of [
      'Note to self: next time I should run the tests first',
      'I learned that this codebase prefers small commits',
      'As an assistant, my approach is to ask before deleting files.',
      'I will remember to check the changelog.',
      'Lesson: verify the schema before migrating.',
      'I decided to split the answer into steps.',
    ]) {
      const r = scoreAgentVoice(text);
      expect(r.layer, text).toBe('agent');
      expect(r.agent, text).toBeGreaterThan(r.user);
    }
  });

  it('treats imperative self-instructions as agent voice', () => {
    const r = scoreAgentVoice('Always verify the build before claiming it is done.');
    expect(r).toEqual({ layer: 'agent', agent: 1, user: 0 });
  });

  it('classifies facts about the user as user', () => {
    for (const text of [
      'The user prefers dark mode',
      'My wife is a nurse',
      'I live in Lisbon and I work at a bank',
      'My birthday is in June',
      'She works at the hospital downtown',
    ]) {
      const r = scoreAgentVoice(text);
      expect(r.layer, text).toBe('user');
      expect(r.user, text).toBeGreaterThan(r.agent);
    }
  });

  it('sends ties to user', () => {
    expect(scoreAgentVoice('The build uses make')).toEqual({ layer: 'user', agent: 0, user: 0 });
    const tie = scoreAgentVoice('I should remember that my wife dislikes olives');
    expect(tie.agent).toBe(tie.user);
    expect(tie.layer).toBe('user');
  });

  it('reads a rule about handling the user as agent voice', () => {
    const r = scoreAgentVoice('When the user asks about deploys, I should check the runbook first.');
    expect(r.layer).toBe('agent');
  });

  it('is deterministic', () => {
    const text = 'Next time I will try a shorter answer for Alice';
    expect(scoreAgentVoice(text)).toEqual(scoreAgentVoice(text));
  });
});
