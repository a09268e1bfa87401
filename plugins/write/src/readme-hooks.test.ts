import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DOMAIN_NODE_TYPES } from './tools/memory-graph-add.js';

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));
const text = () => fs.readFileSync(README, 'utf8').replace(/\s+/g, ' ');

describe('README: the hooks this plugin fires', () => {
  it('names graph_domain with memory_graph_add and exactly the node types of DOMAIN_NODE_TYPES; importance_gate with memory_remember; session_consolidation with memory_session_end', () => {
    const para = text().slice(text().indexOf('The hooks a plugin can tap, and what fires them:'));
    const entry = (hook: string) => para.slice(para.indexOf(`\`${hook}\` (`), para.indexOf('), `', para.indexOf(`\`${hook}\` (`)));
    const domain = entry('graph_domain');
    expect(domain).toContain('`memory_graph_add`');
    const named = [...domain.matchAll(/`(\w+)`/g)].map((m) => m[1]!).filter((w) => ['error', 'decision', 'personality', 'emotion', 'concept', 'person', 'fact', 'organization'].includes(w));
    expect(named).toEqual([...DOMAIN_NODE_TYPES]);
    expect(entry('importance_gate')).toContain('`memory_remember`');
    expect(entry('importance_gate')).toContain('0.05..1.0');
    expect(entry('session_consolidation')).toContain('`memory_session_end`');
    expect(text()).not.toContain('no built tool fires them');
  });
});
