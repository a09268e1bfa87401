#!/usr/bin/env node
'use strict';
// CommonJS (bin/package.json): a start from the image then loads no ES module, and Node's ES module
// loader (its resolver, module jobs and their promises) is not set up at all: about 20 ms of a
// start on Node 20. The packages' modules, when the image does not apply, are imported below.
const fs = require('node:fs');
const module_ = require('node:module');
const path = require('node:path');

const argv = process.argv.slice(2);

// A host that closes stderr only loses log lines: without a listener, the first line written
// (the launcher's, before the server sets up its own) would end the process with EPIPE.
process.stderr.on('error', () => {});

function fail(err) {
  process.stderr.write(`memory-service: ${err && err.stack ? err.stack : String(err)}\n`);
  process.exit(1);
}

// Node 22.1+ keeps V8's compiled code of the modules on disk (NODE_COMPILE_CACHE, or
// node-compile-cache under the OS temp dir; NODE_DISABLE_COMPILE_CACHE=1 turns it off): the
// launcher's own code below, and the whole command when it starts from the modules. It must run
// before they are loaded.
module_.enableCompileCache?.();

/**
 * Start from the server image when it is installed (@memory-service/image: the command as one
 * script run with a V8 code cache, which any Node can keep; spawn to tools/list about a quarter
 * shorter on Node 20, a seventh on Node 24). launch() answers false where the image does not apply
 * (extra plugins, an image older than the packages, MEMORY_IMAGE=0), and the command starts from
 * the modules below.
 */
function startFromImage() {
  let launch;
  try {
    // The image package beside this one (packages/image in the repository, @memory-service/image
    // in node_modules) is the one the package name resolves to from here: a stat instead of
    // resolving a package name through its package.json and exports, about 3 ms of a start.
    const sibling = path.join(__dirname, '..', '..', 'image', 'dist', 'launch.cjs');
    ({ launch } = require(fs.existsSync(sibling) ? sibling : '@memory-service/image'));
  } catch (err) {
    if (err && err.code === 'MODULE_NOT_FOUND' && String(err.message).includes('@memory-service/image')) return Promise.resolve(false);
    process.stderr.write(`[memory-service] warn: the server image could not be loaded (${err && err.message}); starting from the modules\n`);
    return Promise.resolve(false);
  }
  return launch(argv);
}

startFromImage()
  .then((started) => {
    if (started) return undefined;
    return import('../dist/bundle/cli.js').then(({ main }) => main(argv));
  })
  .catch(fail);
