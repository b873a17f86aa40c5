/**
 * Device authorizations on PostgreSQL: a poll locks its row (FOR UPDATE) for its transaction, so
 * concurrent polls of one device code, on any instance, take turns, and each sees what the one
 * before it wrote (the spend, the longer interval).
 */
import type { Kysely } from 'kysely';
import type { DeviceAuthorizations } from '../contract/device-authorizations.js';
import { deviceAuthorizationsOn } from '../device-authorizations.repository.js';
import type { Database } from '../schema.js';

export function postgresDeviceAuthorizations(db: Kysely<Database>): DeviceAuthorizations {
  return deviceAuthorizationsOn(db, {
    readForPoll: (trx, hash) =>
      trx
        .selectFrom('device_authorizations')
        .selectAll()
        .where('device_code_hash', '=', hash)
        .forUpdate()
        .executeTakeFirst(),
  });
}
