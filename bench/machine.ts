/** A description of the machine a run happened on, for the report. */
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { PINNING } from './child.js';

export interface Machine {
  readonly date: string;
  readonly cores: number;
  readonly cpu: string;
  readonly memoryGiB: number;
  readonly node: string;
  readonly pinning: string;
  readonly load: string;
}

export function describeMachine(): Machine {
  let load = 'n/a';
  try {
    load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  } catch {
    // not Linux
  }
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    pinning: PINNING
      ? 'server on core 1, load generator on core 0 (taskset)'
      : 'none (taskset or a second core missing)',
    load,
  };
}
