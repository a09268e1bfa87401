import fs from 'node:fs';
import path from 'node:path';
import { createTestServer, ToolCallError, type TestServer } from '@memory-service/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import floorPlugin, { REPLAY_DIR_ENV } from './floor-plugin.js';
import { freshTempDir, removeDir } from './paths.js';

describe('the benchmark plugin: bench_replay', () => {
  let dir: string;
  let server: TestServer | undefined;
  const saved = process.env[REPLAY_DIR_ENV];

  beforeEach(() => {
    dir = freshTempDir('bench-replay');
    process.env[REPLAY_DIR_ENV] = dir;
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    if (saved === undefined) delete process.env[REPLAY_DIR_ENV];
    else process.env[REPLAY_DIR_ENV] = saved;
    removeDir(dir);
  });

  it('answers with the recorded answer, each call a fresh copy', async () => {
    const recorded = { summary: 'two hits', hits: [{ id: 'ep_1', score: 0.9 }], truncated: false };
    fs.writeFileSync(path.join(dir, 'dream.json'), JSON.stringify(recorded));
    server = await createTestServer({ plugins: [floorPlugin], expose: 'bench' });
    expect(await server.listTools()).toEqual(['bench_replay']);
    const first = await server.call('bench_replay', { answer: 'dream' });
    expect(first).toEqual(recorded);
    first.hits.push('changed by the caller');
    expect(await server.call('bench_replay', { answer: 'dream' })).toEqual(recorded);
  });

  it('says which answer is not recorded yet, and which answers exist', async () => {
    server = await createTestServer({ plugins: [floorPlugin], expose: 'bench' });
    const err = (await server.call('bench_replay', { answer: 'think' }).catch((e: unknown) => e)) as ToolCallError;
    expect(err).toBeInstanceOf(ToolCallError);
    expect(err.error.field).toBe('answer');
    expect(err.error.message).toContain('no recorded think answer');
    const bad = (await server.call('bench_replay', { answer: 'forget' }).catch((e: unknown) => e)) as ToolCallError;
    expect(bad.error.field).toBe('answer');
    expect(bad.error.accepted).toEqual(['think', 'dream']);
  });

  it('refuses to start without the directory of recorded answers', async () => {
    delete process.env[REPLAY_DIR_ENV];
    await expect(createTestServer({ plugins: [floorPlugin], expose: 'bench' })).rejects.toThrow(REPLAY_DIR_ENV);
  });
});
