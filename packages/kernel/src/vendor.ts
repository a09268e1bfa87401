/**
 * tapable, which loads as a dozen small CommonJS files: scripts/bundle-deps.mjs writes
 * dist/vendor.js as one esbuild bundle of it. (semver is loaded only when a plugin declares a
 * range other than ^X.Y.Z or X.Y.Z: see kernel-range.ts.)
 */
export { AsyncParallelHook, AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncHook, SyncWaterfallHook } from 'tapable';
