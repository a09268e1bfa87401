#!/usr/bin/env node
import module from 'node:module';

// Node 22.1+ keeps V8's compiled code of the modules below on disk (NODE_COMPILE_CACHE, or
// node-compile-cache under the OS temp dir; NODE_DISABLE_COMPILE_CACHE=1 turns it off), so a start
// after the first skips compiling them: 170 -> 150 ms from spawn to tools/list on Node 24. Node 20
// has no such cache and this is a no-op there. It must run before the CLI is imported, hence the
// dynamic import.
module.enableCompileCache?.();

const { main } = await import('../dist/bundle/cli.js');
main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`memory-service: ${err && err.stack ? err.stack : String(err)}\n`);
  process.exit(1);
});
