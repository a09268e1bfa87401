import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { definePlugin, Kernel, ManualClock } from '@memory-service/kernel';
import { afterEach, expect, it } from 'vitest';
import { useStores } from './kernel-binding.js';

const dirs: string[] = [];
const kernels: Kernel[] = [];
afterEach(async () => {
  for (const k of kernels.splice(0)) await k.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

it("the stores log through the kernel's logger, not with the name of the plugin that asked for them first", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ms-binding-'));
  dirs.push(dir);
  // Files of an earlier database beside a new one: useStores sets them aside and says so.
  fs.mkdirSync(path.join(dir, 'l1'));
  fs.writeFileSync(path.join(dir, 'l1', 'x.json'), '[]');
  const lines: string[] = [];
  const logger = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
  const k = new Kernel({ dataDir: dir, logger, clock: new ManualClock() });
  kernels.push(k);
  await k.register(
    definePlugin({
      name: '@acme/first-asker',
      version: '1.0.0',
      tier: 'asker',
      kernel: '^1.0.0',
      setup(ctx) {
        useStores(ctx);
        ctx.logger.info('own line');
      },
    }),
  );
  expect(lines.find((l) => l.includes('was made anew'))).toMatch(/^\S*memory\.db was made anew/);
  expect(lines).toContain('@acme/first-asker: own line');
});
