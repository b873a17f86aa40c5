import type { Migration } from 'kysely';
import * as m0001 from './0001-foundation.js';
import * as m0002 from './0002-oauth.js';
import * as m0030 from './0030-school-api.js';
import * as m0100 from './0100-client-metadata-rules.js';

/** Ordered by name; a new migration is a new file added here, never an edit of a landed one. */
export const migrations: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-oauth': m0002,
  '0030-school-api': m0030,
  '0100-client-metadata-rules': m0100,
};
