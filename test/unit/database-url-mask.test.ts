import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { maskDatabaseUrl } from '../../src/storage/postgres-probe.js';

// Issue 24.3: a start-up failure names DATABASE_URL with its password masked, wherever the URL
// carries it (libpq accepts it in the userinfo or as a `password` query parameter).
describe('DATABASE_URL as a start-up error shows it', () => {
  for (const [url, shown] of [
    ['postgres://app:s3cret@db.example:5432/school', 'postgres://app:*****@db.example:5432/school'],
    [
      'postgres://app@db.example/school?password=s3cret&sslmode=require',
      'postgres://app@db.example/school?password=*****&sslmode=require',
    ],
    [
      'postgres://app:p%40ss@db.example/school?password=s3cret',
      'postgres://app:*****@db.example/school?password=*****',
    ],
    ['postgres://db.example/school?schema=x', 'postgres://db.example/school?schema=x'],
  ] as const) {
    it(`shows ${url.replace('s3cret', 'the password')}`, () => {
      const masked = maskDatabaseUrl(url);
      assert.equal(masked, shown);
      assert.doesNotMatch(masked, /s3cret|p%40ss/);
    });
  }

  it('masks the password of a URL the URL parser refuses', () => {
    const masked = maskDatabaseUrl('postgres://app:s3 cret@db example/school');
    assert.doesNotMatch(masked, /s3 cret/);
    assert.match(masked, /^postgres:\/\/app:\*{5}@/);
  });
});
