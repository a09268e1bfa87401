'use strict';
/**
 * zod 4 compiles a parser of its own (new Function) for each object schema the first time it
 * parses with it: the MCP SDK's message schemas at the first requests, each tool's input and output
 * schemas at its first call. For a command that starts, answers a few calls and may stop, that
 * compiling is most of what parsing costs (spawn to an answered tools/list about 10 ms shorter
 * without it; a parse of a tools/call message takes no longer). Only the command turns it off, as it
 * sizes V8's heap: a library must not change its host's zod.
 *
 * zod keeps one configuration for every copy of it in a process on globalThis (its `config()`
 * writes there), so setting it before any copy is loaded reaches the image's and the modules'.
 */
function interpretZod() {
  const key = '__zod_globalConfig';
  globalThis[key] = Object.assign(globalThis[key] ?? {}, { jitless: true });
}

module.exports = { interpretZod };
