import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kernel } from './kernel.js';

/**
 * The temporary data dirs and kernels of one test file: `dir()` makes a dir, `kernel()` keeps a
 * kernel to close, and `cleanup` (for afterEach) closes the kernels and removes the dirs.
 */
export function scratch(prefix: string) {
  const dirs: string[] = [];
  const kernels: Kernel[] = [];
  return {
    dir(): string {
      const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
      dirs.push(d);
      return d;
    },
    kernel<K extends Kernel>(k: K): K {
      kernels.push(k);
      return k;
    },
    async cleanup(): Promise<void> {
      await Promise.all(kernels.splice(0).map((k) => k.close()));
      dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true }));
    },
  };
}
