/**
 * Requests Node's HTTP parser refuses before Fastify sees them (an overlong request line or
 * headers, malformed framing, a request that never arrived in full) and unsupported `Expect`
 * headers: answered with the same JSON error body and common headers as everything else
 * (common-headers.ts), not Node's empty default.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { MAX_HEADER_BYTES, MAX_URL_LENGTH, URL_TOO_LONG } from '../limits.js';
import { HSTS } from './common-headers.js';
import { newRequestId } from './request-id.js';

interface ParserError extends Error {
  code?: string;
  /** What the parser had received (a Buffer). */
  rawPacket?: unknown;
}

interface Answer {
  readonly status: string;
  readonly description: string;
}

/** Whether the request line alone is over the URL limit (what of it the parser had received). */
function requestLineTooLong(error: ParserError): boolean {
  const packet = error.rawPacket;
  if (!Buffer.isBuffer(packet)) return false;
  const end = packet.indexOf('\r\n');
  return (end === -1 ? packet.length : end) > MAX_URL_LENGTH;
}

/** What a request that did not arrive within REQUEST_TIMEOUT is told (and its log line says). */
export const REQUEST_TIMED_OUT = 'the request did not arrive in time; send it again';

/**
 * Sockets answered 408 while a route was still reading their body: that route's read then fails
 * as the connection closes, and the error handler logs and counts it as the 408 it was, not 400.
 */
export const timedOutSockets = new WeakSet<Socket>();

function answerFor(error: ParserError): Answer {
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return requestLineTooLong(error)
      ? {
          status: '414 URI Too Long',
          description: URL_TOO_LONG,
        }
      : {
          status: '431 Request Header Fields Too Large',
          description: `the request line and headers are too large (${MAX_HEADER_BYTES / 1024} KiB at most); send fewer or shorter headers or cookies`,
        };
  }
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return {
      status: '408 Request Timeout',
      description: REQUEST_TIMED_OUT,
    };
  }
  return { status: '400 Bad Request', description: 'the request could not be parsed as HTTP/1.1' };
}

/** The header lines every answer carries (common-headers.ts), as raw HTTP. */
function commonHeaderLines(hsts: boolean): string {
  return `X-Request-Id: ${newRequestId()}\r\nX-Content-Type-Options: nosniff\r\n${hsts ? `Strict-Transport-Security: ${HSTS}\r\n` : ''}`;
}

function errorBody(description: string): string {
  return JSON.stringify({ error: 'invalid_request', error_description: description });
}

/** Fastify's `clientErrorHandler`: a JSON answer on the raw socket, then the connection closes. */
export function clientErrorAnswerer(hsts: boolean): (error: ParserError, socket: Socket) => void {
  return (error, socket) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') timedOutSockets.add(socket);
    // A route may already have begun its answer (REQUEST_TIMEOUT while it reads the body): writing
    // a second status line would corrupt it, so that connection is only closed.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (!socket.writable || inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    const { status, description } = answerFor(error);
    const body = errorBody(description);
    socket.end(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nCache-Control: no-store\r\n${commonHeaderLines(hsts)}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  };
}

/** Node's `checkExpectation` (an `Expect` other than 100-continue): 417 in JSON (RFC 9110 §10.1.1). */
export function expectationAnswerer(
  hsts: boolean,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const body = errorBody(
      `the Expect header ${JSON.stringify(String(request.headers.expect))} is not supported; send the request without it (or with "100-continue")`,
    );
    response.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'x-request-id': newRequestId(),
      'x-content-type-options': 'nosniff',
      ...(hsts ? { 'strict-transport-security': HSTS } : {}),
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    response.end(body);
  };
}
