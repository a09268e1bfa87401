import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a build script (plain ESM, no declarations)
import { unwrapInferredNames } from '../scripts/inferred-names.mjs';

const unwrap = unwrapInferredNames as (source: string, minified?: RegExp) => { text: string; unwrapped: number; kept: number; minifiedModules: number };

/** Every function a script leaves in `out`, by key, with the name it has, run with esbuild's keepNames helper. */
function names(script: string): Record<string, string> {
  const context = vm.createContext({ out: {} as Record<string, unknown> });
  const helper = 'var __name=(t,v)=>t.name===v?t:Object.defineProperty(t,"name",{value:v,configurable:true}),__name2=__name;';
  vm.runInContext(helper + script, context);
  return Object.fromEntries(Object.entries(context.out as Record<string, { name: string }>).map(([k, f]) => [k, f.name]));
}

const SCRIPT = [
  'var a=__name(()=>1,"a"),b=__name(function(){return __name2(()=>2,"inner")},"b");',
  'var c;c=__name(class{},"c");',
  'var renamed2=__name(()=>3,"renamed");',
  'var o={p:__name(()=>4,"p"),"q-r":__name(function(){},"q-r"),s:__name(()=>5,"other")};',
  'var k="t",comp={[k]:__name(()=>6,"t")};',
  'var named=__name(function own(){},"named");',
  'function decl(){}__name(decl,"decl");',
  'var nest=__name(()=>{var deep=__name(()=>7,"deep");return deep},"nest");',
  'out.a=a;out.b=b;out.inner=b();out.c=c;out.renamed=renamed2;out.p=o.p;out.q=o["q-r"];out.s=o.s;out.t=comp.t;out.named=named;out.decl=decl;out.nest=nest;out.deep=nest();',
].join('\n');

describe('unwrapInferredNames', () => {
  it('takes off the calls whose name the assignment gives anyway, and every function keeps its name', () => {
    const { text, unwrapped, kept } = unwrap(SCRIPT);
    // a, b, c, p, "q-r", nest, deep; the others differ, sit in a position that gives no name, or name a declaration.
    expect(unwrapped).toBe(7);
    expect(kept).toBe(6);
    expect(text).toContain('var a=()=>1,b=function(){return __name2(()=>2,"inner")};');
    expect(text).toContain('c=class{};');
    expect(text).toContain('var renamed2=__name(()=>3,"renamed");');
    expect(text).toContain('s:__name(()=>5,"other")');
    expect(text).toContain('[k]:__name(()=>6,"t")');
    expect(text).toContain('var named=__name(function own(){},"named");');
    expect(text).toContain('var nest=()=>{var deep=()=>7;return deep};');
    expect(names(text)).toStrictEqual(names(SCRIPT));
    expect(names(SCRIPT)).toMatchObject({ a: 'a', b: 'b', inner: 'inner', c: 'c', renamed: 'renamed', q: 'q-r', t: 't', deep: 'deep' });
  });

  it('takes off every call inside the modules given as minified, keeping what each call stood for', () => {
    const script =
      'var m={"../kernel/dist/zod.js"(){function f(){}__name(f,"g");var h=__name(()=>1,"i");out.f=f;out.h=h;class E{static{__name(this,"F")}};out.E=E},' +
      '"../kernel/dist/other.js"(){var j=__name(()=>2,"k");out.j=j}};m["../kernel/dist/zod.js"]();m["../kernel/dist/other.js"]();';
    const { text, minifiedModules } = unwrap(script, /\/zod\.js$/);
    expect(minifiedModules).toBe(1);
    expect(text).toContain('function f(){}(f);var h=(()=>1);');
    expect(text).toContain('static{(this)}');
    expect(text).toContain('var j=__name(()=>2,"k")');
    // The minifier's names stay; outside, the helper still names.
    expect(names(text)).toStrictEqual({ f: 'f', h: 'h', E: 'E', j: 'k' });
  });

  it("takes off the calls that only give back a minifier's one- or two-character name the bundling suffixed", () => {
    const script =
      'var t2=__name(()=>1,"t");function q3(){}__name(q3,"q");class k2{static{__name(this,"k")}}var long2=__name(()=>2,"long");' +
      'out.t=t2;out.q=q3;out.k=k2;out.long=long2;';
    const { text, unwrapped, kept } = unwrap(script);
    expect([unwrapped, kept]).toEqual([3, 1]);
    expect(text).toContain('var t2=(()=>1);function q3(){}(q3);class k2{static{(this)}}var long2=__name(()=>2,"long");');
    expect(names(text)).toStrictEqual({ t: 't2', q: 'q3', k: 'k2', long: 'long' });
  });

  it('answers a script that parses', () => {
    expect(() => unwrap('var a=__name(()=>1,"a")+')).toThrow();
  });
});
