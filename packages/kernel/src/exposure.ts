/**
 * MEMORY_EXPOSE: which tools the MCP surface lists. Tokens are tier names, the presets agent,
 * operator, full and all, and the legacy `brief` (daily_brief alone). Primitives are always in.
 */
export const FIRST_PARTY_TIERS = ['primitives', 'wiki', 'review', 'context', 'insight', 'write', 'admin'] as const;

export const PRESETS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  agent: ['primitives', 'context', 'insight', 'write', 'wiki', 'review'],
  operator: ['primitives', 'context', 'insight', 'write', 'wiki', 'review', 'admin'],
});

/** MEMORY_EXPOSE tokens that are not tier names: a tier of one of these names could never be selected. */
export const RESERVED_EXPOSE_TOKENS: readonly string[] = Object.freeze([...Object.keys(PRESETS), 'all', 'full', 'brief']);

export interface Exposure {
  /** Every tool is exposed (all / full). */
  all: boolean;
  /** Tiers whose tools are exposed. */
  tiers: ReadonlySet<string>;
  /** Single tools exposed without their tier (legacy `brief`). */
  tools: ReadonlySet<string>;
  /** Tokens that named nothing known. */
  unknown: string[];
}

export function resolveExposure(
  raw: string | undefined,
  knownTiers: Iterable<string>,
  warn: (message: string) => void = () => {},
): Exposure {
  const known = new Set(knownTiers);
  const tiers = new Set<string>(['primitives']);
  const tools = new Set<string>();
  const unknown: string[] = [];
  let all = false;
  const tokens = (raw ?? '')
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
  for (const token of tokens) {
    if (token === 'all' || token === 'full') all = true;
    else if (token === 'brief') tools.add('daily_brief');
    else if (PRESETS[token]) PRESETS[token]!.forEach((t) => tiers.add(t));
    else if (known.has(token)) tiers.add(token);
    else unknown.push(token);
  }
  if (unknown.length) {
    // A first-party tier whose plugin is not in the set (a test server given only its own plugin) is not a typo: say so.
    const notLoaded = unknown.filter((t) => (FIRST_PARTY_TIERS as readonly string[]).includes(t));
    warn(
      `MEMORY_EXPOSE: ignoring unknown token${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} ` +
        `(known: ${[...known, 'agent', 'operator', 'full', 'all', 'brief'].join(', ')})` +
        (notLoaded.length
          ? `; ${notLoaded.join(', ')} ${notLoaded.length > 1 ? 'are first-party tiers whose plugins are' : 'is a first-party tier whose plugin is'} not loaded (${notLoaded.map((t) => `@memory-service/plugin-${t}`).join(', ')})`
          : ''),
    );
  }
  if (all) known.forEach((t) => tiers.add(t));
  return { all, tiers, tools, unknown };
}

/** Is a tool with these tiers visible under the exposure? */
export function isExposed(exposure: Exposure, name: string, tiers: readonly string[]): boolean {
  return exposure.all || exposure.tools.has(name) || tiers.some((t) => exposure.tiers.has(t));
}

/** MEMORY_META=1 (or true/yes/on) turns on the meta dispatchers. */
export function metaEnabled(raw: string | undefined): boolean {
  return ['1', 'true', 'yes', 'on'].includes((raw ?? '').trim().toLowerCase());
}
