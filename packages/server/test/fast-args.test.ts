import { fastArgs, fastOutput } from '@memory-service/kernel';
import { afterEach, describe, expect, it } from 'vitest';
import { checkFastArgsAgainstZod } from '../../kernel/src/fast-args.fixture.js';
import { checkFastOutputAgainstZod } from '../../kernel/src/fast-output.fixture.js';
import { firstPartyService } from './helpers.js';

const services = firstPartyService();
afterEach(() => services.close());

describe('the argument shortcut on every first-party tool', () => {
  it('never takes what zod refuses and gives what zod gives; think and dream have one', async () => {
    const service = await services.start();
    const tools = service.kernel.tools();
    const withShortcut = tools.filter((t) => fastArgs(t.input) !== null).map((t) => t.name);
    expect(withShortcut).toEqual(expect.arrayContaining(['think', 'dream']));
    for (const [i, tool] of tools.entries()) {
      const taken = checkFastArgsAgainstZod(tool.input, 3_000, i + 1);
      if (withShortcut.includes(tool.name)) expect(taken, tool.name).toBeGreaterThan(0);
    }
  });
});

describe('the answer shortcut on every first-party tool', () => {
  it('takes only answers zod gives back with the same JSON; think and dream have one', async () => {
    const service = await services.start();
    const tools = service.kernel.tools().filter((t) => t.output !== undefined);
    const withShortcut = tools.filter((t) => fastOutput(t.output!) !== null).map((t) => t.name);
    expect(withShortcut).toEqual(expect.arrayContaining(['think', 'dream']));
    let taken = 0;
    for (const [i, tool] of tools.entries()) {
      const n = checkFastOutputAgainstZod(tool.output!, 600, i + 1);
      if (tool.name === 'think' || tool.name === 'dream') expect(n, tool.name).toBeGreaterThan(0);
      taken += n;
    }
    expect(taken).toBeGreaterThan(tools.length);
  });
});
