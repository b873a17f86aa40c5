/**
 * Device authorizations on SQLite: a poll's transaction holds the database's write lock (one
 * server process per file), so a plain read inside it is already the poll's own.
 */
import type { Kysely } from 'kysely';
import type { DeviceAuthorizations } from '../contract/device-authorizations.js';
import { deviceAuthorizationsOn } from '../device-authorizations.repository.js';
import type { Database } from '../schema.js';

export function sqliteDeviceAuthorizations(db: Kysely<Database>): DeviceAuthorizations {
  return deviceAuthorizationsOn(db, {
    readForPoll: (trx, hash) =>
      trx
        .selectFrom('device_authorizations')
        .selectAll()
        .where('device_code_hash', '=', hash)
        .executeTakeFirst(),
  });
}
