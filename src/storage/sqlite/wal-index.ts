/**
 * How many frames SQLite's WAL holds, read from the WAL-index header in the `-shm` file
 * (https://www.sqlite.org/walformat.html §2.2: `mxFrame`, a 32-bit integer in native byte order
 * at offset 16 of the header's first copy). The main thread reads it between two statements of
 * a bulk writer without asking SQLite, which has no cheaper way to tell it; a read without
 * SQLite's lock may be one commit old, which is all a pacing hint needs.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';

const MX_FRAME_OFFSET = 16;

/** Frames in the WAL of the database at `path`; 0 when it has no WAL index (none written yet). */
export function framesInWal(path: string): number {
  let fd: number;
  try {
    fd = openSync(`${path}-shm`, 'r');
  } catch {
    return 0;
  }
  try {
    const header = Buffer.alloc(4);
    if (readSync(fd, header, 0, 4, MX_FRAME_OFFSET) < 4) return 0;
    return endianness() === 'LE' ? header.readUInt32LE(0) : header.readUInt32BE(0);
  } finally {
    closeSync(fd);
  }
}
