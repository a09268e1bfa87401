import { namedEntities, normalize, splitSentences } from './text.js';

/** Result of {@link scoreAgentVoice}: the chosen layer and both raw signal scores. */
export interface AgentVoiceScore {
  layer: 'user' | 'agent';
  /** Sum of agent-voice signal weights (the assistant speaking about itself). */
  agent: number;
  /** Sum of user-fact signal weights (facts about the user or third parties). */
  user: number;
}

/**
 * Decides `think`'s `layer: auto` by scoring agent-voice against user-fact signals.
 *
 * Each distinct pattern that matches adds its weight once:
 *   agent, weight 2: "I should", "I will remember to", "as an assistant/AI/agent",
 *                    "my approach", "I learned", "note to self", "next time I",
 *                    "I decided to", "lesson:" / "lesson learned", and
 *                    "when/if/whenever the user" (a rule about handling the user)
 *   agent, weight 1: "my mistake/response/answer/reasoning/strategy/tone",
 *                    "I was wrong", "I made a mistake", "I misunderstood",
 *                    "I'll try/avoid/make sure/check/verify/ask"
 *   agent, weight 1 per sentence: an imperative self-instruction, i.e. a sentence
 *                    starting with "Always", "Never", "Don't", "Do not", "Avoid",
 *                    "Remember to", "Make sure", "Double-check", "Verify", "Check",
 *                    "Ask", "Prefer", "Keep", "Stop", "Try"
 *   user, weight 2:  "the user", "user prefers/likes/wants/said/is/has/works/lives",
 *                    "my wife/husband/partner/son/daughter/mother/.../birthday",
 *                    "I live in", "I work at/for/as", "my name is", "I was born",
 *                    "I'm from"
 *   user, weight 1:  "I like/love/hate/prefer/enjoy", "my favorite/hobby/job/home",
 *                    a third-person fact ("he/she/they is/are/works/lives/likes/has"),
 *                    and, once, any named entity (capitalised word not at sentence start)
 *
 * layer = 'agent' only when agent > user; ties (including 0 vs 0) go to 'user',
 * because a fact about the user is the safer default for unclassified text.
 */
export function scoreAgentVoice(text: string): AgentVoiceScore {
  const lower = normalize(text).toLowerCase();
  let agent = weigh(lower, AGENT_STRONG, 2) + weigh(lower, AGENT_WEAK, 1);
  for (const sentence of splitSentences(text)) {
    if (IMPERATIVE_START.test(sentence.toLowerCase())) agent += 1;
  }
  let user = weigh(lower, USER_STRONG, 2) + weigh(lower, USER_WEAK, 1);
  if (namedEntities(text).length > 0) user += 1;
  return { layer: agent > user ? 'agent' : 'user', agent, user };
}

function weigh(lower: string, patterns: readonly RegExp[], weight: number): number {
  let total = 0;
  for (const p of patterns) if (p.test(lower)) total += weight;
  return total;
}

const AGENT_STRONG: readonly RegExp[] = [
  /\bi should\b/,
  /\bi(?:'ll| will) remember to\b/,
  /\bas an? (?:ai|assistant|agent|language model)\b/,
  /\bmy approach\b/,
  /\bi(?:'ve)? learn(?:ed|t)\b/,
  /\bnote to self\b/,
  /\bnext time,? i\b/,
  /\bi decided to\b/,
  /\blesson(?: learned)?:|\blesson learned\b/,
  /\b(?:when|if|whenever) the user\b/,
];

const AGENT_WEAK: readonly RegExp[] = [
  /\bmy (?:mistake|error|response|responses|answer|answers|reasoning|strategy|tone)\b/,
  /\bi (?:was wrong|made a mistake|misunderstood)\b/,
  /\bi(?:'ll| will) (?:try|avoid|make sure|check|verify|ask|keep)\b/,
];

const IMPERATIVE_START =
  /^(?:always|never|don't|do not|avoid|remember to|make sure|double-check|verify|check|ask|prefer|keep|stop|try)\b/;

const USER_STRONG: readonly RegExp[] = [
  /\bthe user\b/,
  /\buser(?:'s)? (?:prefers|likes|loves|hates|wants|needs|said|says|is|has|works|lives)\b/,
  /\bmy (?:wife|husband|partner|girlfriend|boyfriend|son|daughter|kids|children|mom|mother|dad|father|brother|sister|family|friend|boss|dog|cat|birthday)\b/,
  /\bi live in\b/,
  /\bi work (?:at|for|as|in)\b/,
  /\bmy name is\b/,
  /\bi was born\b/,
  /\bi(?:'m| am) from\b/,
];

const USER_WEAK: readonly RegExp[] = [
  /\bi (?:really )?(?:like|love|hate|prefer|enjoy)\b/,
  /\bmy (?:favou?rite|hobby|hobbies|job|home|house|car)\b/,
  /\b(?:he|she|they) (?:is|are|was|works|lives|likes|loves|has)\b/,
];
