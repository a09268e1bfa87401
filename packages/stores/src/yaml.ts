import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);
let yamlModule: typeof import('yaml') | undefined;

/**
 * The yaml package, loaded on first use: rules.yaml, schemas/*.yaml and standing queries are read
 * only when a tool asks, so a start does not pay for loading the parser.
 */
export function yaml(): typeof import('yaml') {
  return (yamlModule ??= requireHere('yaml') as typeof import('yaml'));
}
