/**
 * Routing and hook thresholds from the spec's Limits table, shared by every scorer
 * and by the code that routes `think`, the `new_message` / `auto_save_candidate`
 * hooks and the timeline. Comparisons are written next to each constant because
 * the spec mixes strict (`above`) and inclusive (`at or above`) bounds.
 */

/** think rule 1: a thought strictly longer than this (characters) becomes a wiki page. */
export const LONG_THOUGHT_CHARS = 2000;

/** think rule 2: a thought strictly shorter than this (characters) may become an L4 fact. */
export const SHORT_THOUGHT_CHARS = 60;

/** think rule 2 (and the rule 1 summary link): importance strictly above this routes to L4. */
export const L4_IMPORTANCE = 0.7;

/** think rule 3: emotional weight strictly above this routes to an L3 episode. */
export const EMOTIONAL_L3 = 0.5;

/** hooks.auto_save_threshold default: importance at or above this auto-saves to L3. */
export const AUTO_SAVE_THRESHOLD = 0.5;

/** new_message / auto_save_candidate: importance at or above this also saves to L4 core. */
export const AUTO_SAVE_L4 = 0.8;
