import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AjvJsonSchemaValidator as RealProvider } from '@modelcontextprotocol/sdk/validation/ajv';
import { AjvJsonSchemaValidator, REAL_PROVIDER } from './lazy-ajv-provider.js';

const schema = {
  type: 'object',
  properties: { n: { type: 'integer', minimum: 1 }, mail: { type: 'string', format: 'email' } },
  required: ['n'],
} as const;

describe('the lazy ajv provider', () => {
  it('validates like the SDK provider, formats included', () => {
    const lazy = new AjvJsonSchemaValidator().getValidator(schema);
    const real = new RealProvider().getValidator(schema);
    for (const input of [{ n: 2 }, { n: 0 }, { n: 'x' }, {}, { n: 3, mail: 'a@b.example' }, { n: 3, mail: 'not a mail' }]) {
      const got = lazy(input);
      const want = real(input);
      expect(got.valid).toBe(want.valid);
      expect(got.errorMessage).toBe(want.errorMessage);
    }
    expect(lazy({ n: 0 }).valid).toBe(false);
    expect(lazy({ n: 3, mail: 'not a mail' }).valid).toBe(false);
  });

  it('uses the Ajv instance it is given', () => {
    const calls: unknown[] = [];
    const fakeAjv = {
      getSchema: () => undefined,
      compile: (s: unknown) => {
        calls.push(s);
        const v = () => true;
        return Object.assign(v, { errors: null });
      },
      errorsText: () => '',
    };
    const validate = new AjvJsonSchemaValidator(fakeAjv).getValidator({ type: 'string' });
    expect(validate('x').valid).toBe(true);
    expect(calls).toEqual([{ type: 'string' }]);
  });

  it('is what the built bundle holds in place of ajv, and works from there', async () => {
    const dir = new URL('../dist/bundle/', import.meta.url);
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.js'));
    const sources = new Map(files.map((f) => [f, fs.readFileSync(new URL(f, dir), 'utf8')]));
    for (const s of sources.values()) expect(s).not.toMatch(/node_modules\/(ajv|ajv-formats)\//);
    const holder = files.find((f) => sources.get(f)!.includes(REAL_PROVIDER));
    expect(holder).toBeDefined();
    // The bundled SDK Server's validator, built as every server builds it.
    const bundled = (await import(new URL(holder!, dir).href)) as { createMcpServer?: (surface: { tools: [] }) => unknown };
    expect(typeof bundled.createMcpServer).toBe('function');
    const server = bundled.createMcpServer!({ tools: [] }) as { _jsonSchemaValidator: AjvJsonSchemaValidator };
    const validate = server._jsonSchemaValidator.getValidator({ type: 'object', properties: { mail: { type: 'string', format: 'email' } } });
    expect(validate({ mail: 'a@b.example' }).valid).toBe(true);
    expect(validate({ mail: 'zz' })).toMatchObject({ valid: false, errorMessage: expect.stringContaining('email') });
  });
});
