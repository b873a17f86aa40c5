/**
 * Issue 49 §6: LOG_FORMAT=pretty writes one readable line per entry for a developer's terminal
 * (pino-pretty), carrying what the JSON line carries — the error code of a failed request
 * included — and redacted the same way. JSON stays the default.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startServer } from '../helpers/server-process.js';
import { waitFor } from '../helpers/wait.js';

describe('LOG_FORMAT', () => {
  it('pretty: readable request lines with status and error code, secrets masked; json: JSON lines', async () => {
    for (const format of ['pretty', 'json']) {
      const server = await startServer({
        LOG_FORMAT: format,
        LOG_LEVEL: 'info',
        DATABASE_URL: 'sqlite::memory:',
      });
      try {
        const response = await fetch(`${server.url}/api/oauth/token?code=s3cret-code`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=authorization_code&client_id=nobody&code=s3cret-body',
        });
        assert.equal(response.status, 401);
        await waitFor('the request line', () => server.output().includes('request completed'), 10_000);
        const line = server
          .output()
          .split('\n')
          .find((l) => l.includes('request completed'))!;
        if (format === 'pretty') {
          assert.match(line, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request completed/);
          assert.match(line, /"statusCode":401/);
          assert.match(line, /"error":"invalid_client"/);
          assert.match(line, /"url":"\/api\/oauth\/token\?code=\[redacted\]"/);
        } else {
          const parsed = JSON.parse(line) as Record<string, unknown>;
          assert.equal(parsed.statusCode, 401);
          assert.equal(parsed.error, 'invalid_client');
        }
        assert.doesNotMatch(server.output(), /s3cret/, 'no secret in the log');
      } finally {
        await server.stop();
      }
    }
  });
});
