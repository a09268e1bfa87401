import { describe, expect, it } from 'vitest';
import { MemoryError, type Logger } from '@memory-service/kernel';
import { processErrorListeners, processErrorText } from './cli.js';

describe("the command's listeners for errors that reach the process", () => {
  it('write one line naming the plugin when the error carries one, then the stack frames', () => {
    const err = new MemoryError('KERNEL_ERR_AFTER_READY', 'Cannot register tool late after ready', { plugin: 'late-plugin' });
    const text = processErrorText('uncaught exception', err);
    const [first, ...frames] = text.split('\n');
    expect(first).toBe('uncaught exception from plugin late-plugin: LifecycleError: Cannot register tool late after ready');
    expect(frames.length).toBeGreaterThan(0);
    expect(frames.every((l) => /^\s+at /.test(l))).toBe(true);
    expect(processErrorText('unhandled rejection', 'a string')).toBe('unhandled rejection: a string');
  });

  it('log an unhandled rejection and go on; log an uncaught exception, then stop', () => {
    const lines: string[] = [];
    const logger: Logger = { info: () => {}, warn: () => {}, error: (m) => void lines.push(m) };
    let stopped = 0;
    const l = processErrorListeners(() => logger, () => void stopped++);
    l.unhandledRejection(Object.assign(new Error('background work failed'), { plugin: 'p1' }));
    expect(stopped).toBe(0);
    l.uncaughtException(new Error('timer threw'));
    expect(stopped).toBe(1);
    expect(lines.map((x) => x.split('\n')[0])).toEqual(['unhandled rejection from plugin p1: Error: background work failed', 'uncaught exception: Error: timer threw']);
  });
});
