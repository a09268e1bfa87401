/**
 * The process's one zod (classic API). The kernel and the plugins (through the kernel's `z`) use
 * it, and the server's bundle of the MCP SDK is pointed at it and at zod-mini.ts.
 *
 * After tsc, scripts/bundle-deps.mjs replaces dist/zod.js and dist/zod-mini.js with two esbuild
 * entry files and one shared chunk, so zod's core exists once: zod's own ESM build is about a
 * hundred modules (every locale among them), which took about 85 ms of each start to resolve and
 * load, where the bundle takes about 40 ms. Everything zod exports stays exported, locales included.
 */
export * from 'zod';
export { default } from 'zod';
