/** A description of the machine a benchmark ran on. */
import os from 'node:os';
import type { MachineInfo } from './bench-types.js';

export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  return {
    cpu_model: cpus[0]?.model.trim() || 'unknown',
    cores: cpus.length,
    node: process.version,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    total_memory_bytes: os.totalmem(),
  };
}
