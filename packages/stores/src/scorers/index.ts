/**
 * Deterministic scorers used by think routing, the auto-save hooks, the timeline
 * and session end. No model, no randomness, no clock: same input, same output.
 */
export {
  LONG_THOUGHT_CHARS,
  SHORT_THOUGHT_CHARS,
  L4_IMPORTANCE,
  EMOTIONAL_L3,
  AUTO_SAVE_THRESHOLD,
  AUTO_SAVE_L4,
} from './thresholds.js';
export { scoreImportance, FILLER_IMPORTANCE, FILLER_WORDS } from './importance.js';
export { scoreEmotionalWeight, LEXICON } from './emotional.js';
export { scoreAgentVoice, type AgentVoiceScore } from './agent-voice.js';
export {
  trainingValue,
  TRAINING_HIGH_IMPORTANCE,
  TRAINING_LOW_IMPORTANCE,
  TRAINING_SHORT_CHARS,
  type TrainingValue,
} from './training-value.js';
export {
  sessionQuality,
  SESSION_COMPONENT_MAX,
  SESSION_QUALITY_MAX,
  type SessionQualityInput,
  type SessionQuality,
} from './session-quality.js';
export { estimateTokens, CHARS_PER_TOKEN } from './tokens.js';
export { isSignificant } from './significance.js';
export {
  extractRelation,
  RELATION_MAX_CHARS,
  RELATION_MAX_WORDS,
  RELATION_SCAN_CHARS,
  RELATION_SCAN_SENTENCES,
  type ExtractedRelation,
} from './relation.js';
