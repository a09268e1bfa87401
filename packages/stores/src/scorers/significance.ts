import { AUTO_SAVE_THRESHOLD, EMOTIONAL_L3 } from './thresholds.js';

/**
 * Whether a thought is significant enough to become a `thought` event on the
 * timeline: importance at or above {@link AUTO_SAVE_THRESHOLD} (0.5), or emotional
 * weight strictly above {@link EMOTIONAL_L3} (0.5). NaN inputs count as 0.
 */
export function isSignificant(importance: number, emotional: number): boolean {
  return importance >= AUTO_SAVE_THRESHOLD || emotional > EMOTIONAL_L3;
}
