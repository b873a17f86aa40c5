/** When a migration run is retried (src/storage/migrate.ts): only for another schema dropped mid-scan. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { droppedMidScan } from '../../src/storage/migrate.js';

describe('migration retry after a schema dropped mid-scan', () => {
  it('retries when another schema was dropped while the introspection scanned it', () => {
    assert.equal(droppedMidScan('schema "t_03485e158506" does not exist', 't_aaaaaaaaaaaa'), true);
  });

  it('retries when a table of another schema was dropped mid-scan (seen in CI: relation "t_….forms")', () => {
    assert.equal(droppedMidScan('relation "t_03485e158506.forms" does not exist', 't_aaaaaaaaaaaa'), true);
    assert.equal(droppedMidScan('relation "t_03485e158506.forms" does not exist', undefined), true);
  });

  it('retries when the introspection met a column another schema’s migration rebuilt (seen in CI: course_sections.updated_at)', () => {
    const message = 'column "updated_at" of relation "course_sections" does not exist';
    assert.equal(droppedMidScan(message, 't_aaaaaaaaaaaa', 'pg_get_serial_sequence'), true);
    // The same message from a migration's own statement is a real error.
    assert.equal(droppedMidScan(message, 't_aaaaaaaaaaaa', 'errorMissingColumn'), false);
    assert.equal(droppedMidScan(message, 't_aaaaaaaaaaaa'), false);
  });

  it('never retries a missing schema or relation of its own, or any other error', () => {
    assert.equal(droppedMidScan('relation "t_aaaaaaaaaaaa.forms" does not exist', 't_aaaaaaaaaaaa'), false);
    assert.equal(droppedMidScan('schema "t_aaaaaaaaaaaa" does not exist', 't_aaaaaaaaaaaa'), false);
    assert.equal(droppedMidScan('relation "public.clients" does not exist', undefined), false);
    assert.equal(droppedMidScan('relation "clients" does not exist', undefined), false);
    assert.equal(droppedMidScan('duplicate key value violates unique constraint', 't_aaaaaaaaaaaa'), false);
  });
});
