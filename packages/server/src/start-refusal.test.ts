import { MemoryError } from '@memory-service/kernel';
import { describe, expect, it } from 'vitest';
import { startRefusal } from './start-refusal.js';

describe('startRefusal', () => {
  it('prints the message and the catalogue code the README quotes', () => {
    const err = new MemoryError('KERNEL_ERR_PLUGIN_KERNEL_RANGE', 'Plugin old@1.0.0 requires kernel ^2.0.0, but this kernel is 1.0.0', { plugin: 'old' });
    expect(startRefusal(err)).toBe('memory-service: cannot start: Plugin old@1.0.0 requires kernel ^2.0.0, but this kernel is 1.0.0 (KERNEL_ERR_PLUGIN_KERNEL_RANGE)\n');
  });

  it("adds the cause's code when it differs (a setup stopped by a config value)", () => {
    const cause = new MemoryError('KERNEL_ERR_CONFIG', 'config notes.limit must be an integer in [1, 100]; got "abc"');
    const err = new MemoryError('KERNEL_ERR_PLUGIN_SETUP', `Plugin notes failed in setup: ${cause.message}`, { plugin: 'notes', cause });
    expect(startRefusal(err)).toBe(
      'memory-service: cannot start: Plugin notes failed in setup: config notes.limit must be an integer in [1, 100]; got "abc" (KERNEL_ERR_PLUGIN_SETUP, caused by KERNEL_ERR_CONFIG)\n',
    );
  });

  it('an error that is not coded gets no code (not a made-up KERNEL_ERR_TOOL_FAILED)', () => {
    expect(startRefusal(new Error("EACCES: permission denied, mkdir '/proc/x'"))).toBe("memory-service: cannot start: EACCES: permission denied, mkdir '/proc/x'\n");
  });
});
