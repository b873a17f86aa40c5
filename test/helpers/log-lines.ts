/** The server's log, captured: a stream for createTestApp's `logStream` that keeps every line, parsed. */
import { Writable } from 'node:stream';

export function captureLogLines<Line = Record<string, unknown>>(): { sink: Writable; lines: Line[] } {
  const lines: Line[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      // Every line the server writes is one JSON object (pino); anything else fails the parse.
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line) as Line);
      done();
    },
  });
  return { sink, lines };
}
