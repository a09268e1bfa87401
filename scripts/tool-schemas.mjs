/**
 * Writes a plugin's tool JSON Schemas file (see packages/kernel/src/tool-schemas.ts). Run from the
 * plugin's package directory after its build: `node ../../scripts/tool-schemas.mjs`.
 *
 * The built entry the package exports is imported, and its plugin (default export, or `plugin`)
 * must name the file in `toolSchemas`; the plugin is registered alone in a throw-away kernel and
 * the schemas of the tools it registers are written there, converted as the first tools/list of
 * a server would convert them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const cwd = process.cwd();
const pkg = JSON.parse(fs.readFileSync(path.join(cwd, 'package.json'), 'utf8'));
const exp = pkg.exports?.['.'];
const rel = (typeof exp === 'string' ? exp : exp?.import ?? exp?.default) ?? pkg.main;
if (!rel) throw new Error(`${pkg.name}: package.json names no entry to import`);
const mod = await import(pathToFileURL(path.resolve(cwd, rel)).href);
const plugin = mod.default ?? mod.plugin;
if (!plugin?.toolSchemas) throw new Error(`${pkg.name}: the plugin names no toolSchemas file`);
// The workspace's kernel, which the plugin imports too: one kernel, one zod, the same conversion.
const { writeToolSchemas } = await import('@memory-service/kernel');
const file = fileURLToPath(plugin.toolSchemas);
const count = await writeToolSchemas(plugin, file);
if (count === 0) throw new Error(`${pkg.name}: the plugin registered no tools; it needs no toolSchemas file`);
process.stdout.write(`${pkg.name}: ${count} tool schemas written to ${path.relative(cwd, file)}\n`);
