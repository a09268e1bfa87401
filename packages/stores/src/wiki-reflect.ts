import type { StoreContext } from './context.js';
import { validationError } from './errors.js';
import { estimateTokens, fitToBudget, type BudgetSection } from './retrieval/budget.js';
import type { Layer, Scope } from './types.js';
import { checkScope, isoOf } from './util.js';
import type { WikiPageInfo } from './wiki.js';
import { INFO_COLS, toInfo, type WikiRow } from './wiki-row.js';
import { SKILL_PAGE_MAX_BYTES, WIKI_TYPES, wikiSizeLint, type WikiType } from './wiki-types.js';

/** wiki_reflect's period: whole hours from 1 to a year, 24 by default. */
export const WIKI_REFLECT_HOURS_MIN = 1;
export const WIKI_REFLECT_HOURS_MAX = 8760;
export const WIKI_REFLECT_HOURS_DEFAULT = 24;
/** The most tokens a wiki_reflect digest holds (the stores' one estimator: retrieval/budget.ts). */
export const WIKI_REFLECT_MAX_TOKENS = 1000;
/** The most-linked pages listed. */
export const WIKI_REFLECT_TOP_LINKED = 10;
/** The most orphans, and pages over their size lint, listed (their counts are whole). */
export const WIKI_REFLECT_LIST_MAX = 50;

export interface WikiLinkedPage extends WikiPageInfo {
  in_links: number;
  out_links: number;
}

export interface WikiLintedPage extends WikiPageInfo {
  lint: string;
}

export interface WikiReflection {
  layer: Layer;
  period_hours: number;
  /** The period, bounds included: pages whose `updated` lies in it changed in it. */
  since: string;
  until: string;
  /** Pages created in the period. */
  created: number;
  /** Pages created before the period and updated in it. */
  updated: number;
  /** Per wiki type with a change, in the order of WIKI_TYPES. */
  by_type: { wiki_type: WikiType; created: number; updated: number }[];
  /** Changed pages with in-links, the most first, then by title (code-point order), then id. */
  most_linked: WikiLinkedPage[];
  /** Changed pages with no link in or out, by title, then id; at most WIKI_REFLECT_LIST_MAX. */
  orphans: WikiPageInfo[];
  orphan_count: number;
  /** Changed pages over their size lint, the largest first, then by title, then id; at most WIKI_REFLECT_LIST_MAX. */
  over_size_lint: WikiLintedPage[];
  over_size_lint_count: number;
  digest: string;
  estimated_tokens: number;
  /** The digest was cut to WIKI_REFLECT_MAX_TOKENS. */
  truncated: boolean;
}

const P_COLS = INFO_COLS.split(', ')
  .map((c) => `p.${c}`)
  .join(', ');
const CHANGED = 'p.layer = ? AND p.user_id = ? AND p.updated >= ? AND p.updated <= ?';
const IN_LINKS = '(SELECT COUNT(*) FROM wiki_links l WHERE l.layer = p.layer AND l.user_id = p.user_id AND l.to_title = p.title)';
const OUT_LINKS = '(SELECT COUNT(*) FROM wiki_links l WHERE l.layer = p.layer AND l.user_id = p.user_id AND l.from_title = p.title)';
const ORPHAN = `${IN_LINKS} = 0 AND ${OUT_LINKS} = 0`;
// The size lint's condition (wikiSizeLint), as SQL: the rows it selects are mapped through it.
const OVER_SIZE = `p.wiki_type = 'skill' AND p.size > ${SKILL_PAGE_MAX_BYTES}`;

export function checkPeriodHours(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < WIKI_REFLECT_HOURS_MIN || value > WIKI_REFLECT_HOURS_MAX) {
    throw validationError(
      'period_hours',
      `period_hours must be a whole number of hours from ${WIKI_REFLECT_HOURS_MIN} to ${WIKI_REFLECT_HOURS_MAX} (a year)`,
      `${WIKI_REFLECT_HOURS_MIN}..${WIKI_REFLECT_HOURS_MAX}`,
    );
  }
  return value;
}

/** One line of a title in the digest: white space runs made one space. */
function line(title: string): string {
  return title.replace(/\s+/g, ' ').trim();
}

/**
 * A deterministic digest of the scope's pages changed in the `periodHours` up to `nowMs` (the
 * injected clock's time): a page changed when its `updated` lies in [now - period, now]. Counts by
 * type of pages created and of pages only updated in the period; of the changed pages, the
 * most-linked (in-links: the links wiki_link lists in, counted from any page of the scope), the
 * orphans (no link in or out) and those over their size lint; and a Markdown digest of the same
 * within WIKI_REFLECT_MAX_TOKENS. Reads only.
 */
export function reflectWiki(ctx: StoreContext, scope: Scope, periodHours: number, nowMs: number): WikiReflection {
  checkScope(scope);
  const hours = checkPeriodHours(periodHours);
  if (!Number.isFinite(nowMs)) throw validationError('now', 'now must be a time in milliseconds');
  const since = isoOf(nowMs - hours * 3_600_000);
  const until = isoOf(nowMs);
  const at = [scope.layer, scope.user_id, since, until];
  const counts = ctx
    .stmt(`SELECT wiki_type, SUM(created >= ?) AS created, SUM(created < ?) AS updated FROM wiki_pages p WHERE ${CHANGED} GROUP BY wiki_type`)
    .all(since, since, ...at) as { wiki_type: WikiType; created: number; updated: number }[];
  const byType = counts.sort((a, b) => WIKI_TYPES.indexOf(a.wiki_type) - WIKI_TYPES.indexOf(b.wiki_type));
  const linked = ctx
    .stmt(
      `SELECT * FROM (SELECT ${P_COLS}, ${IN_LINKS} AS in_links, ${OUT_LINKS} AS out_links FROM wiki_pages p WHERE ${CHANGED})
       WHERE in_links > 0 ORDER BY in_links DESC, title ASC, id ASC LIMIT ?`,
    )
    .all(...at, WIKI_REFLECT_TOP_LINKED) as (WikiRow & { in_links: number; out_links: number })[];
  const orphans = ctx
    .stmt(`SELECT ${P_COLS} FROM wiki_pages p WHERE ${CHANGED} AND ${ORPHAN} ORDER BY p.title ASC, p.id ASC LIMIT ?`)
    .all(...at, WIKI_REFLECT_LIST_MAX) as WikiRow[];
  const orphanCount = (ctx.stmt(`SELECT COUNT(*) AS n FROM wiki_pages p WHERE ${CHANGED} AND ${ORPHAN}`).get(...at) as { n: number }).n;
  const over = ctx
    .stmt(`SELECT ${P_COLS} FROM wiki_pages p WHERE ${CHANGED} AND ${OVER_SIZE} ORDER BY p.size DESC, p.title ASC, p.id ASC LIMIT ?`)
    .all(...at, WIKI_REFLECT_LIST_MAX) as WikiRow[];
  const overCount = (ctx.stmt(`SELECT COUNT(*) AS n FROM wiki_pages p WHERE ${CHANGED} AND ${OVER_SIZE}`).get(...at) as { n: number }).n;
  const r: Omit<WikiReflection, 'digest' | 'estimated_tokens' | 'truncated'> = {
    layer: scope.layer,
    period_hours: hours,
    since,
    until,
    created: byType.reduce((n, t) => n + t.created, 0),
    updated: byType.reduce((n, t) => n + t.updated, 0),
    by_type: byType.map((t) => ({ wiki_type: t.wiki_type, created: t.created, updated: t.updated })),
    most_linked: linked.map((p) => ({ ...toInfo(p), in_links: p.in_links, out_links: p.out_links })),
    orphans: orphans.map(toInfo),
    orphan_count: orphanCount,
    over_size_lint: over.flatMap((p) => {
      const lint = wikiSizeLint(p);
      return lint === null ? [] : [{ ...toInfo(p), lint }];
    }),
    over_size_lint_count: overCount,
  };
  return { ...r, ...reflectionDigest(r) };
}

/** The Markdown digest of a reflection, fitted to WIKI_REFLECT_MAX_TOKENS with its heading counted. */
export function reflectionDigest(r: Omit<WikiReflection, 'digest' | 'estimated_tokens' | 'truncated'>): {
  digest: string;
  estimated_tokens: number;
  truncated: boolean;
} {
  const header =
    `# Wiki reflection: ${r.layer} layer, last ${r.period_hours} hour${r.period_hours === 1 ? '' : 's'}\n\n` +
    `_${r.since} to ${r.until}: ${r.created} page${r.created === 1 ? '' : 's'} created, ${r.updated} updated._\n\n`;
  if (r.created + r.updated === 0) {
    const digest = `${header}No pages were created or updated in the period.`;
    return { digest, estimated_tokens: estimateTokens(digest), truncated: false };
  }
  const sections: BudgetSection[] = [
    { title: 'Changes by type', text: r.by_type.map((t) => `- ${t.wiki_type}: ${t.created} created, ${t.updated} updated`).join('\n') },
    {
      title: 'Most linked',
      text: r.most_linked.length === 0 ? 'No changed page has in-links.' : r.most_linked.map((p) => `- ${line(p.title)} (${p.in_links} in, ${p.out_links} out)`).join('\n'),
    },
    {
      title: `Orphans (${r.orphan_count})`,
      text: r.orphan_count === 0 ? 'Every changed page has a link.' : r.orphans.map((p) => `- ${line(p.title)} (${p.wiki_type})`).join('\n'),
    },
    {
      title: `Over size lint (${r.over_size_lint_count})`,
      text: r.over_size_lint_count === 0 ? 'None.' : r.over_size_lint.map((p) => `- ${line(p.title)}: ${p.lint}`).join('\n'),
    },
  ];
  const fitted = fitToBudget(sections, WIKI_REFLECT_MAX_TOKENS - estimateTokens(header));
  const digest = (header + fitted.sections.map((s) => `## ${s.title}\n${s.text}\n\n`).join('')).trimEnd();
  return { digest, estimated_tokens: estimateTokens(digest), truncated: fitted.truncated };
}
