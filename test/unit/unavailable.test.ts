/**
 * Issue 23: which errors mean the database cannot serve right now (503 temporarily_unavailable
 * with Retry-After) and which stay a 500.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyError, FastifyRequest } from 'fastify';
import pg from 'pg';
import { toWireError } from '../../src/http/error-handler.js';
import { StaleStatement } from '../../src/storage/statement-names.js';
import { whyUnavailable } from '../../src/storage/unavailable.js';

const coded = (code: string, message = 'failed') => Object.assign(new Error(message), { code });
const pgError = (code: string) => Object.assign(new pg.DatabaseError('server says no', 0, 'error'), { code });

describe('database faults', () => {
  it('PostgreSQL unreachable, restarting, timing out or out of connections is a fault of the moment', () => {
    assert.equal(whyUnavailable(coded('ECONNREFUSED')), 'unreachable');
    assert.equal(whyUnavailable(coded('ECONNRESET')), 'unreachable');
    assert.equal(whyUnavailable(new Error('Connection terminated unexpectedly')), 'unreachable');
    assert.equal(whyUnavailable(new Error('Connection terminated due to connection timeout')), 'timeout');
    assert.equal(whyUnavailable(new Error('timeout exceeded when trying to connect')), 'timeout');
    assert.equal(whyUnavailable(new Error('Query read timeout')), 'timeout');
    assert.equal(whyUnavailable(pgError('57P01')), 'unreachable', 'admin_shutdown (pg_ctl stop -m fast)');
    assert.equal(whyUnavailable(pgError('57P03')), 'unreachable', 'cannot_connect_now');
    assert.equal(whyUnavailable(pgError('08006')), 'unreachable', 'connection_failure');
    assert.equal(whyUnavailable(pgError('53300')), 'busy', 'too_many_connections');
    assert.equal(whyUnavailable(pgError('57014')), 'timeout', 'query_canceled');
    assert.equal(whyUnavailable(new AggregateError([coded('ECONNREFUSED')])), 'unreachable');
    assert.equal(whyUnavailable(new Error('wrapped', { cause: coded('ETIMEDOUT') })), 'unreachable');
  });

  it('a named statement still stale after its retry is a fault of the moment; 0A000 alone is not', () => {
    assert.equal(whyUnavailable(new StaleStatement(pgError('0A000'))), 'busy');
    assert.equal(whyUnavailable(pgError('0A000')), undefined);
  });

  it('SQLite: a full disk, an I/O error or a lock held too long; a file write on a full disk', () => {
    assert.equal(whyUnavailable(coded('SQLITE_FULL', 'database or disk is full')), 'disk_full');
    assert.equal(whyUnavailable(coded('SQLITE_IOERR_WRITE')), 'io_error');
    assert.equal(whyUnavailable(coded('SQLITE_BUSY')), 'busy');
    assert.equal(whyUnavailable(coded('ENOSPC')), 'disk_full');
  });

  it('a deadlock or serialization failure still so after the transaction was rerun answers 503 temporarily_unavailable with Retry-After, never 500', () => {
    assert.equal(whyUnavailable(pgError('40P01')), 'busy', 'deadlock_detected');
    assert.equal(whyUnavailable(pgError('40001')), 'busy', 'serialization_failure');
    const request = { raw: { socket: {} } } as unknown as FastifyRequest;
    for (const code of ['40P01', '40001']) {
      const answer = toWireError(pgError(code) as unknown as FastifyError, request);
      assert.equal(answer.status, 503);
      assert.equal(answer.code, 'temporarily_unavailable');
      assert.match(answer.headers['retry-after'] ?? '', /^[1-9]\d*$/);
    }
  });

  it('a statement that is wrong, or any other error, is not', () => {
    assert.equal(whyUnavailable(pgError('23505')), undefined, 'unique_violation');
    assert.equal(whyUnavailable(pgError('22021')), undefined);
    assert.equal(whyUnavailable(coded('SQLITE_CONSTRAINT_UNIQUE')), undefined);
    assert.equal(whyUnavailable(new TypeError('x is not a function')), undefined);
    assert.equal(whyUnavailable(undefined), undefined);
    assert.equal(whyUnavailable('ECONNREFUSED'), undefined);
  });

  it('a fault answers 503 temporarily_unavailable with Retry-After; anything else unknown stays a 500', () => {
    const request = { raw: { socket: {} } } as unknown as FastifyRequest;
    const fault = toWireError(coded('ECONNREFUSED') as FastifyError, request);
    assert.equal(fault.status, 503);
    assert.equal(fault.code, 'temporarily_unavailable');
    assert.match(fault.headers['retry-after'] ?? '', /^[1-9]\d*$/);
    const full = toWireError(coded('SQLITE_FULL') as FastifyError, request);
    assert.equal(full.status, 503);
    const other = toWireError(new TypeError('boom') as FastifyError, request);
    assert.equal(other.status, 500);
    assert.equal(other.code, 'server_error');
    assert.equal(other.headers['retry-after'], undefined);
  });
});
