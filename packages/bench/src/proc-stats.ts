/** Process and disk figures read from the operating system. */
import fs from 'node:fs';
import path from 'node:path';

/** Parse the VmHWM line (peak resident set) of a /proc/<pid>/status text, in bytes. */
export function parseVmHwm(status: string): number | null {
  const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
  return m ? Number(m[1]) * 1024 : null;
}

/** Peak resident set size of a live process, in bytes; null when /proc is not readable. */
export function readPeakRssBytes(pid: number): number | null {
  try {
    return parseVmHwm(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return null;
  }
}

/** Total size in bytes of the regular files under a directory. */
export function directorySize(dir: string): number {
  let total = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of entries) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) total += directorySize(full);
    else if (e.isFile()) total += fs.statSync(full).size;
  }
  return total;
}
