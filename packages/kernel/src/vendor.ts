/**
 * The kernel's other runtime dependencies that load as many small CommonJS files (tapable, the
 * parts of semver the kernel uses): scripts/bundle-deps.mjs writes dist/vendor.js as one esbuild
 * bundle of them, which takes a start about 25 ms less than loading their forty-odd files.
 */
export { AsyncParallelHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncWaterfallHook } from 'tapable';
export { default as satisfies } from 'semver/functions/satisfies.js';
export { default as validRange } from 'semver/ranges/valid.js';
