#!/usr/bin/env node
import module from 'node:module';
import { interpretZod } from './zod-jitless.js';

const argv = process.argv.slice(2);

// A host that closes stderr only loses log lines: without a listener, the first line written
// (the launcher's, before the server sets up its own) would end the process with EPIPE.
process.stderr.on('error', () => {});

function fail(err) {
  process.stderr.write(`memory-service: ${err && err.stack ? err.stack : String(err)}\n`);
  process.exit(1);
}

// Before any zod is loaded (zod-jitless.js).
interpretZod();

// Node 22.1+ keeps V8's compiled code of the modules on disk (NODE_COMPILE_CACHE, or
// node-compile-cache under the OS temp dir; NODE_DISABLE_COMPILE_CACHE=1 turns it off): the
// launcher's own module below, and the whole command when it starts from the modules. It must run
// before they are imported, hence the dynamic imports.
module.enableCompileCache?.();

/**
 * Start from the server image when it is installed (@memory-service/image: the command as one
 * script run with a V8 code cache, which any Node can keep; spawn to tools/list about a quarter
 * shorter on Node 20, a seventh on Node 24). launch() answers false where the image does not apply
 * (extra plugins, an image older than the packages, MEMORY_IMAGE=0), and the command starts from
 * the modules below.
 */
async function startFromImage() {
  let launch;
  try {
    ({ launch } = await import('@memory-service/image'));
  } catch (err) {
    if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('@memory-service/image')) return false;
    process.stderr.write(`[memory-service] warn: the server image could not be loaded (${err && err.message}); starting from the modules\n`);
    return false;
  }
  return launch(argv);
}

if (!(await startFromImage().catch(fail))) {
  const { main } = await import('../dist/bundle/cli.js');
  main(argv).catch(fail);
}
