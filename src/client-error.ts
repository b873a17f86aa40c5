/**
 * Requests Node's HTTP parser refuses before Fastify sees them (headers over the size limit,
 * malformed request lines): answered with the same JSON error body as everything else, not
 * Node's empty default.
 */
import type { Socket } from 'node:net';
import { MAX_HEADER_BYTES } from './limits.js';

interface ParserError extends Error {
  code?: string;
}

export function answerClientError(error: ParserError, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request';
  const body = JSON.stringify({
    error: 'invalid_request',
    error_description: tooLarge
      ? `the request line and headers are too large (${MAX_HEADER_BYTES / 1024} KiB at most); send fewer or shorter parameters, or use a POST body`
      : 'the request could not be parsed as HTTP/1.1',
  });
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
