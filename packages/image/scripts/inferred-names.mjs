/**
 * keepNames wraps every function and class expression in a helper call, `x = __name(() => ..., "x")`,
 * so that it keeps its name when the bundling renames `x`. Passed as an argument, the function has
 * no name of its own, so the helper defines one: its `name` leaves V8's fast properties for a
 * dictionary of its own (about 430 bytes and 2 µs each), for about 6,500 functions at every start.
 *
 * Where the name would be inferred anyway (ECMAScript's NamedEvaluation: an anonymous function or
 * class assigned to an identifier of the same name, as a variable's initialiser, the right side of
 * `=`, or the value of a property whose key is that name), the call is taken off and the function
 * is written in its place: V8 gives it the same name when it parses the script, at no cost. Calls
 * where the names differ (a function the bundling renamed) and every other call stay as they are.
 *
 * Inside the modules given as `minified` (the kernel's bundle of zod, minified and built without
 * keepNames: its names are the minifier's), the image's own keepNames only restored names such as
 * `e7` that the image's bundling changed to `e8`: every helper call there is taken off, the
 * function or class written in its place. The same goes anywhere for a call that only gives back
 * a one- or two-character name (a minifier's) that the bundling suffixed (`i2` named `i`): the
 * function keeps the name it has.
 */
import { parse } from 'acorn';

const HELPER = /^__name\d*$/;
const PARSE = { ecmaVersion: 'latest', sourceType: 'script', allowReturnOutsideFunction: true };
/** A name of one or two characters: what a minifier gives, not what a person writes. */
const MINIFIED_NAME = /^[A-Za-z_$][\w$]?$/;

const isAnonymousDefinition = (node) =>
  node.type === 'ArrowFunctionExpression' || ((node.type === 'FunctionExpression' || node.type === 'ClassExpression') && node.id === null);

/** The name a position gives an anonymous function assigned there, or null where it gives none. */
function inferredName(parent, child) {
  if (parent.type === 'VariableDeclarator' && parent.init === child && parent.id.type === 'Identifier') return parent.id.name;
  if (parent.type === 'AssignmentExpression' && parent.operator === '=' && parent.right === child && parent.left.type === 'Identifier') return parent.left.name;
  if (parent.type === 'Property' && parent.value === child && parent.kind === 'init' && !parent.computed && !parent.method && !parent.shorthand) {
    if (parent.key.type === 'Identifier') return parent.key.name;
    if (parent.key.type === 'Literal' && typeof parent.key.value === 'string') return parent.key.value;
  }
  return null;
}

/** Walk every node with its ancestors, nearest last (acorn's tree: nodes are objects with a string `type`). */
function walk(node, ancestors, visit) {
  visit(node, ancestors);
  ancestors.push(node);
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (Array.isArray(value)) {
      for (const item of value) if (item && typeof item.type === 'string') walk(item, ancestors, visit);
    } else if (value && typeof value.type === 'string' && key !== 'loc') walk(value, ancestors, visit);
  }
  ancestors.pop();
}

/** The name of the class whose static block holds `__name(this, ...)` as a statement (esbuild's form for a class), or null. */
function staticBlockClassName(ancestors) {
  const [cls, body, block, statement] = ancestors.slice(-4);
  if (statement?.type !== 'ExpressionStatement' || block?.type !== 'StaticBlock' || body?.type !== 'ClassBody') return null;
  return cls?.type === 'ClassDeclaration' && cls.id ? cls.id.name : null;
}

/**
 * The script with each helper call whose name NamedEvaluation gives anyway, or that stands in a
 * module matching `minified`, replaced by its function or class; how many were replaced and kept,
 * and how many modules matched. The result is parsed again: a script that no longer
 * parses is an error, not an image.
 */
export function unwrapInferredNames(source, minified = /^$/) {
  const tree = parse(source, PARSE);
  const cuts = [];
  // The source ranges of the minified modules: esbuild wraps each module of a bundle in a method
  // keyed by its path (`__esm({"../kernel/dist/zod.js"() {...}})`).
  const regions = [];
  let kept = 0;
  // `parens`: the function stands where the call stood, parenthesised, whatever the position.
  const cut = (node, fn, parens) => cuts.push({ start: node.start, end: node.end, fnStart: fn.start, fnEnd: fn.end, parens });
  walk(tree, [], (node, ancestors) => {
    const parent = ancestors[ancestors.length - 1];
    if (node.type === 'Property' && node.key.type === 'Literal' && typeof node.key.value === 'string' && minified.test(node.key.value)) {
      regions.push([node.value.start, node.value.end]);
      return;
    }
    if (!parent || node.type !== 'CallExpression' || node.callee.type !== 'Identifier' || !HELPER.test(node.callee.name)) return;
    const [fn, name] = node.arguments;
    if (node.arguments.length !== 2 || !fn || name.type !== 'Literal' || typeof name.value !== 'string') return;
    if (regions.some(([start, end]) => node.start >= start && node.end <= end)) {
      cut(node, fn, true);
      return;
    }
    const given = isAnonymousDefinition(fn)
      ? inferredName(parent, node)
      : fn.type === 'Identifier'
        ? fn.name
        : fn.type === 'ThisExpression'
          ? staticBlockClassName(ancestors)
          : null;
    if (given !== null && given !== name.value && MINIFIED_NAME.test(name.value) && given.startsWith(name.value) && /^\d+$/.test(given.slice(name.value.length))) {
      // A minifier's name (`i`) that the image's bundling suffixed (`i2`): nothing to keep.
      cut(node, fn, true);
      return;
    }
    if (!isAnonymousDefinition(fn) || given !== name.value) {
      kept++;
      return;
    }
    cut(node, fn, false);
  });
  // Helper calls nest (a named function inside another's body): cut the outer first, and cut each
  // inner one inside the text that takes the outer's place.
  cuts.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  const stack = [];
  const emitUntil = (pos) => {
    out += source.slice(at, pos);
    at = pos;
  };
  const close = (done) => {
    emitUntil(done.fnEnd);
    if (done.parens) out += ')';
    at = done.end;
  };
  for (const next of cuts) {
    while (stack.length && stack[stack.length - 1].end <= next.start) close(stack.pop());
    emitUntil(next.start);
    if (next.parens) out += '(';
    at = next.fnStart;
    stack.push(next);
  }
  while (stack.length) close(stack.pop());
  out += source.slice(at);
  parse(out, PARSE);
  return { text: out, unwrapped: cuts.length, kept, minifiedModules: regions.length };
}
