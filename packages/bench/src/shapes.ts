/**
 * Data shapes for `npm run shapes` (shapes-run.ts): kinds of memory an agent stores that take other
 * paths through think than the benchmark's plain sentences do: core facts whose keys share their
 * first words, relation phrases that also make graph nodes, long thoughts that become wiki pages
 * (all in one second: their automatic titles number up), and pages whose titles slug alike. Each
 * path once had a cost that grew with what was stored before; timed at two sizes, a shape whose
 * p50 grows with N shows such a cost again. Pure: generators and sizes, no server.
 */
import { Prng } from './prng.js';
import { sentence, query } from './textgen.js';
import { NAMES, NOUNS } from './vocabulary.js';

/** One think call of a shape: its text and any arguments beside it. */
export interface ShapeItem {
  text: string;
  wiki_title?: string;
}

export interface Shape {
  name: string;
  /** What the shape stores, for the report. */
  stores: string;
  /** Items stored for a size N (the page shapes store a tenth: each page is a file). */
  items(n: number): number;
  /** Item i (deterministic in the generator's state). */
  item(r: Prng, i: number): ShapeItem;
}

/** Long thoughts: think makes a wiki page above this many characters (spec, routing rule 1). */
export const LONG_TEXT_CHARS = 2000;

/** Cyrillic letters for titles with no Latin letter or digit (they all slug to `untitled`). */
const CYRILLIC = 'абвгдежзиклмнопрстуфхцчшщэюя';

/** i written with Cyrillic letters only (bijective base 28), so every title differs. */
export function cyrillicNumber(i: number): string {
  let n = i + 1;
  let out = '';
  while (n > 0) {
    n -= 1;
    out = CYRILLIC[n % CYRILLIC.length] + out;
    n = Math.floor(n / CYRILLIC.length);
  }
  return out;
}

/** Sentences joined until the text is a long thought. */
export function longText(r: Prng): string {
  let text = sentence(r);
  while (text.length <= LONG_TEXT_CHARS + 100) text = `${text} ${sentence(r)}`;
  return text;
}

const tenth = (n: number) => Math.max(1, Math.floor(n / 10));

export const SHAPES: readonly Shape[] = [
  {
    name: 'sentences',
    stores: 'L3 episodes (the benchmark’s texts)',
    items: (n) => n,
    item: (r) => ({ text: sentence(r) }),
  },
  {
    name: 'shared-prefix-facts',
    stores: 'L4 facts whose keys share their first six words',
    items: (n) => n,
    item: (r, i) => ({ text: `Always remember: the user must never get ${r.pick(NOUNS)} ${i}` }),
  },
  {
    name: 'relations',
    stores: 'L3 episodes plus graph nodes ("X is related to Y")',
    items: (n) => n,
    item: (r, i) => ({ text: `${r.pick(NAMES)} ${i} is related to the ${r.pick(NOUNS)}` }),
  },
  {
    name: 'long-pages',
    stores: 'wiki pages of long thoughts, automatic titles',
    items: tenth,
    item: (r) => ({ text: longText(r) }),
  },
  {
    name: 'alike-titles',
    stores: 'wiki pages whose titles all slug to one file name',
    items: tenth,
    item: (r, i) => ({ text: sentence(r), wiki_title: `Заметка ${cyrillicNumber(i)}` }),
  },
];

/** The shapes named in a comma list (every shape when empty); an unknown name is an error naming the known ones. */
export function pickShapes(names: readonly string[]): Shape[] {
  if (names.length === 0) return [...SHAPES];
  return names.map((name) => {
    const shape = SHAPES.find((s) => s.name === name);
    if (!shape) throw new Error(`--shapes: unknown shape ${name}; known: ${SHAPES.map((s) => s.name).join(', ')}`);
    return shape;
  });
}

/** A query for the dream samples of any shape: one to three words of the shared vocabulary. */
export function shapeQuery(r: Prng): string {
  return query(r);
}
