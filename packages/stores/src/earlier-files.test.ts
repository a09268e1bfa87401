import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EARLIER_FILES_DIR, setAsideEarlierFiles } from './earlier-files.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});
function dataDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ms-earlier-'));
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

describe('setAsideEarlierFiles', () => {
  it('moves the L1, wiki and index folders that hold a file under earlier-files/<time>/, deleting nothing', () => {
    const dir = dataDir({
      'l1/user/default.json': '[{"text":"the only copy"}]',
      'wiki/user/default/diary/day.md': '# Day',
      'retrieval/l3.idx': 'x',
      'config.yaml': 'l1:\n  size: 10\n',
      '.meta/standing/user/default/q.yaml': 'query: x',
    });
    fs.mkdirSync(path.join(dir, 'backups'));
    const out = setAsideEarlierFiles(dir, Date.UTC(2026, 10, 27, 12, 0, 0));
    expect(out).toEqual({ moved: ['l1', 'wiki', 'retrieval'], to: path.join(dir, EARLIER_FILES_DIR, '2026-11-27T12-00-00-000Z') });
    expect(fs.readFileSync(path.join(out!.to, 'l1/user/default.json'), 'utf8')).toBe('[{"text":"the only copy"}]');
    expect(fs.readFileSync(path.join(out!.to, 'wiki/user/default/diary/day.md'), 'utf8')).toBe('# Day');
    expect(fs.existsSync(path.join(dir, 'l1'))).toBe(false);
    // What is not written from the database's rows stays where it is.
    expect(fs.existsSync(path.join(dir, 'config.yaml'))).toBe(true);
    expect(fs.existsSync(path.join(dir, '.meta/standing/user/default/q.yaml'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'backups'))).toBe(true);
  });

  it('leaves empty folders and a fresh data dir alone', () => {
    const dir = dataDir({});
    expect(setAsideEarlierFiles(dir, 0)).toBeNull();
    fs.mkdirSync(path.join(dir, 'l1', 'user'), { recursive: true });
    expect(setAsideEarlierFiles(dir, 0)).toBeNull();
    expect(fs.existsSync(path.join(dir, EARLIER_FILES_DIR))).toBe(false);
  });
});
