import path from 'node:path';
import { MemoryError } from './errors.js';

/** Lower-case, ASCII, dash-separated; never empty, never a dot path, at most 120 characters. */
export function slugify(input: string, fallback = 'untitled'): string {
  const slug = input
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 120)
    .replace(/[-.]+$/g, '');
  return slug.length > 0 ? slug : fallback;
}

/** Join path segments under root and refuse any result that leaves it. */
export function safeJoin(root: string, ...segments: string[]): string {
  const base = path.resolve(root);
  const target = path.resolve(base, ...segments);
  if (target !== base && !target.startsWith(base + path.sep)) {
    throw new MemoryError('KERNEL_ERR_PATH', `Path escapes the data directory: ${segments.join('/')}`, {
      field: 'path',
    });
  }
  return target;
}
