import { cutUnits } from '@memory-service/kernel';
import { estimateTokens } from '../scorers/index.js';

/**
 * Token budgets. The one estimator is the scorers' `estimateTokens`: ceil(chars / 4), where
 * chars is the string length in UTF-16 code units.
 */
export { estimateTokens };

export interface BudgetSection {
  /** Optional heading, rendered as `## title` and counted against the budget. */
  title?: string;
  text: string;
}

export interface FittedSections {
  sections: BudgetSection[];
  tokens: number;
  /** True when a section was cut or dropped. */
  truncated: boolean;
}

const ELLIPSIS = '…';

function sectionTokens(s: BudgetSection): number {
  return estimateTokens(s.title ? `## ${s.title}\n${s.text}\n\n` : `${s.text}\n\n`);
}

/**
 * Keep sections in order while they fit in the token budget. The first section that does not
 * fit is cut at a character boundary (ending with an ellipsis) when a useful part of it fits
 * (at least 8 tokens); everything after it is dropped.
 */
export function fitToBudget(sections: readonly BudgetSection[], budget: number): FittedSections {
  const out: BudgetSection[] = [];
  let used = 0;
  const cap = Math.max(0, Math.floor(budget));
  for (let i = 0; i < sections.length; i++) {
    const s = sections[i];
    const cost = sectionTokens(s);
    if (used + cost <= cap) {
      out.push(s);
      used += cost;
      continue;
    }
    const left = cap - used - sectionTokens({ title: s.title, text: '' });
    if (left >= 8) {
      const chars = Math.max(0, left * 4 - ELLIPSIS.length);
      const cut: BudgetSection = { ...s, text: `${cutUnits(s.text, chars).trimEnd()}${ELLIPSIS}` };
      let c = sectionTokens(cut);
      let text = cut.text;
      while (used + c > cap && text.length > ELLIPSIS.length) {
        text = `${cutUnits(text, Math.max(0, text.length - ELLIPSIS.length - 4))}${ELLIPSIS}`;
        c = sectionTokens({ ...s, text });
      }
      if (used + c <= cap) {
        out.push({ ...s, text });
        used += c;
      }
    }
    return { sections: out, tokens: used, truncated: true };
  }
  return { sections: out, tokens: used, truncated: false };
}
