import type { Migration } from 'kysely';
import * as m0001 from './0001-foundation.js';
import * as m0002 from './0002-oauth.js';
import * as m0030 from './0030-school-api.js';
import * as m0040 from './0040-refresh-successor.js';
import * as m0050 from './0050-signin-throttle.js';
import * as m0100 from './0100-client-metadata-rules.js';
import * as m0110 from './0110-signing-key-activation.js';
import * as m0120 from './0120-id-token-algorithms.js';
import * as m0130 from './0130-dpop.js';
import * as m0140 from './0140-device-authorization.js';

/** Ordered by name; a new migration is a new file added here, never an edit of a landed one. */
export const migrations: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-oauth': m0002,
  '0030-school-api': m0030,
  '0040-refresh-successor': m0040,
  '0050-signin-throttle': m0050,
  '0100-client-metadata-rules': m0100,
  '0110-signing-key-activation': m0110,
  '0120-id-token-algorithms': m0120,
  '0130-dpop': m0130,
  '0140-device-authorization': m0140,
};
