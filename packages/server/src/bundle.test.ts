import fs from 'node:fs';
import { describe, expect, it } from 'vitest';

// The built bundle of the `memory-service` command (the test task runs after the build).
const dir = new URL('../dist/bundle/', import.meta.url);
const sources = () =>
  fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .map((f) => fs.readFileSync(new URL(f, dir), 'utf8'))
    .join('\n');

describe("the server bundle's copy of the MCP SDK types", () => {
  it('keeps the schemas the server uses and drops those of APIs it does not serve', () => {
    const all = sources();
    for (const used of ['JSONRPCMessageSchema', 'InitializeRequestSchema', 'CallToolRequestSchema', 'ListToolsRequestSchema', 'PingRequestSchema']) {
      expect(all, used).toMatch(new RegExp(`\\b${used} = `));
    }
    // Prompts and resource subscriptions: this server offers neither, so nothing refers to them.
    for (const unused of ['ListPromptsRequestSchema', 'GetPromptResultSchema', 'SubscribeRequestSchema']) {
      expect(all, unused).not.toMatch(new RegExp(`\\b${unused} = `));
    }
    expect(all).toContain('/* @__PURE__ */ (() =>');
  });
});

describe("the command's start under stdio", () => {
  /** The bundle files a module imports statically (`import ... from "./x.js"`, `import "./x.js"`), transitively. */
  const staticGraph = (entry: string): Set<string> => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = fs.readFileSync(new URL(file, dir), 'utf8');
      for (const m of text.matchAll(/^(?:import|export)\s(?:[^;]*?from\s*)?"\.\/([^"]+\.js)"/gms)) visit(m[1]!);
    };
    visit(entry);
    return seen;
  };

  it('does not load the MCP SDK: its Server and protocol schemas sit in chunks imported only on demand', () => {
    const graph = staticGraph('cli.js');
    const all = fs.readdirSync(dir).filter((f) => f.endsWith('.js'));
    const sdkTypes = all.filter((f) => /\bJSONRPCMessageSchema = /.test(fs.readFileSync(new URL(f, dir), 'utf8')));
    const sdkServer = all.filter((f) => /\bclass Server extends Protocol\b|\bServer = class extends Protocol\b/.test(fs.readFileSync(new URL(f, dir), 'utf8')));
    expect(sdkTypes).toHaveLength(1);
    expect(sdkServer.length).toBeGreaterThan(0);
    for (const f of [...sdkTypes, ...sdkServer]) expect(graph.has(f), f).toBe(false);
    // ...and the stdio session reaches the adapter with a dynamic import.
    expect([...graph].some((f) => /import\("\.\/mcp-adapter-[A-Z0-9]+\.js"\)/.test(fs.readFileSync(new URL(f, dir), 'utf8')))).toBe(true);
  });
});
