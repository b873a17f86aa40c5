/**
 * PostgreSQL for the lab's tests: the server at TEST_DATABASE_URL (the product's test runner
 * passes SCHOOLAUTH_TEST_PG_URL); without either the PostgreSQL cases skip.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const PG_URL = process.env.TEST_DATABASE_URL ?? process.env.SCHOOLAUTH_TEST_PG_URL;

export const DIALECTS: ReadonlyArray<'sqlite' | 'postgres'> = PG_URL ? ['sqlite', 'postgres'] : ['sqlite'];

export function newSchemaName(): string {
  return `bench_${randomBytes(6).toString('hex')}`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
