/** LoCoMo conversation files: turns in session order, the text each turn is ingested as, and the questions. */

export interface LocomoTurn {
  diaId: string;
  session: number;
  speaker: string;
  /** The ingested text: `"<speaker>: <text>"` plus `" [image: <blip_caption>]"` when the turn has an image. */
  text: string;
}

export interface LocomoQuestion {
  question: string;
  category: number;
  /** Distinct evidence turn ids that name a turn of the conversation, in the order given. */
  evidence: string[];
}

export interface LocomoConversation {
  name: string;
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
  /** Questions of category 1-4 left without any evidence id that names a turn. */
  skippedQuestions: number;
  /** Evidence ids that name no turn of the conversation. */
  unknownEvidence: string[];
}

/** The categories the protocol scores: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop. */
export const CATEGORY_NAMES: Readonly<Record<number, string>> = {
  1: 'multi-hop',
  2: 'temporal',
  3: 'open-domain',
  4: 'single-hop',
};

interface RawTurn {
  speaker?: unknown;
  dia_id?: unknown;
  text?: unknown;
  blip_caption?: unknown;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The text a turn is ingested as. */
export function turnText(speaker: string, text: string, blipCaption?: string): string {
  const base = `${speaker}: ${text}`;
  return blipCaption ? `${base} [image: ${blipCaption}]` : base;
}

/** A dialogue id in canonical form (`D8:06` → `D8:6`); other strings unchanged. */
export function canonicalDiaId(id: string): string {
  const m = /^D(\d+):(\d+)$/i.exec(id.trim());
  return m ? `D${Number(m[1])}:${Number(m[2])}` : id.trim();
}

/**
 * Evidence ids as given (possibly several in one string, separated by `;`, `,` or whitespace),
 * reduced to the distinct ones that name a known turn, in order. Unknown ids go to `unknown`.
 */
export function cleanEvidence(raw: unknown, known: ReadonlySet<string>, unknown: string[] = []): string[] {
  const items = Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw];
  const out: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string') continue;
    for (const part of item.split(/[;,\s]+/)) {
      if (part === '') continue;
      const id = canonicalDiaId(part);
      if (!known.has(id)) {
        unknown.push(part);
        continue;
      }
      if (!out.includes(id)) out.push(id);
    }
  }
  return out;
}

/** Session keys (`session_<n>` holding a list of turns) in numeric order. */
export function sessionKeys(conversation: Record<string, unknown>): string[] {
  return Object.keys(conversation)
    .filter((k) => /^session_\d+$/.test(k) && Array.isArray(conversation[k]))
    .sort((a, b) => Number(a.slice(8)) - Number(b.slice(8)));
}

/**
 * The conversations of one LoCoMo file: one sample, or a list of them (the released
 * `locomo10.json`), each then named by its `sample_id`, else by the file's name and its place.
 */
export function parseLocomoFile(raw: unknown, name: string): LocomoConversation[] {
  if (!Array.isArray(raw)) return [parseConversation(raw, name)];
  return raw.map((sample, i) => {
    const id = isRecord(sample) && typeof sample.sample_id === 'string' && sample.sample_id.trim() !== '' ? sample.sample_id.trim() : null;
    return parseConversation(sample, id ?? `${name}#${i + 1}`);
  });
}

/**
 * Parse one LoCoMo sample. Accepts both the released shape (`{conversation: {...}, qa: [...]}`)
 * and a flattened one where the session keys sit next to `qa`.
 */
export function parseConversation(raw: unknown, name: string): LocomoConversation {
  if (!isRecord(raw)) throw new Error(`${name}: expected a JSON object`);
  const conversation = isRecord(raw.conversation) ? raw.conversation : raw;
  const turns: LocomoTurn[] = [];
  const known = new Set<string>();
  for (const key of sessionKeys(conversation)) {
    const session = Number(key.slice(8));
    for (const t of conversation[key] as RawTurn[]) {
      if (!isRecord(t) || typeof t.dia_id !== 'string' || typeof t.text !== 'string') continue;
      const speaker = typeof t.speaker === 'string' ? t.speaker : 'unknown';
      const caption = typeof t.blip_caption === 'string' && t.blip_caption.trim() !== '' ? t.blip_caption : undefined;
      const diaId = canonicalDiaId(t.dia_id);
      known.add(diaId);
      turns.push({ diaId, session, speaker, text: turnText(speaker, t.text, caption) });
    }
  }
  const qa = Array.isArray(raw.qa) ? raw.qa : [];
  const questions: LocomoQuestion[] = [];
  const unknownEvidence: string[] = [];
  let skippedQuestions = 0;
  for (const q of qa) {
    if (!isRecord(q) || typeof q.question !== 'string') continue;
    const category = Number(q.category);
    if (!(category in CATEGORY_NAMES)) continue;
    const evidence = cleanEvidence(q.evidence, known, unknownEvidence);
    if (evidence.length === 0) {
      skippedQuestions++;
      continue;
    }
    questions.push({ question: q.question, category, evidence });
  }
  return { name, turns, questions, skippedQuestions, unknownEvidence };
}
