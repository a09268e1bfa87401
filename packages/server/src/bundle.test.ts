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
