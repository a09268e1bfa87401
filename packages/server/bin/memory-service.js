#!/usr/bin/env node
import { main } from '../dist/bundle/cli.js';

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`memory-service: ${err && err.stack ? err.stack : String(err)}\n`);
  process.exit(1);
});
