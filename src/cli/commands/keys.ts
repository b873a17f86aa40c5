import { recordAudit } from '../../audit/audit.js';
import { rotateKeys } from '../../crypto/keys.js';
import { notifyKeysChanged } from '../../ops/key-sync.js';
import { listAllKeys } from '../../storage/signing-keys.repository.js';
import { defineCommand, isoTime, table } from '../command.js';

export const keysRotate = defineCommand({
  name: 'keys rotate',
  summary: 'Create a new signing key; the previous one stays published until its ID tokens expire',
  options: {},
  async run(ctx, _args, io) {
    const row = await rotateKeys(ctx.db, {
      idTokenTtl: ctx.config.idTokenTtl,
      keyEncryptionSecret: ctx.config.keyEncryptionSecret,
      now: ctx.now,
    });
    await recordAudit(ctx.db, { kind: 'key.rotated', detail: { kid: row.kid } }, ctx.now());
    await notifyKeysChanged(ctx.db);
    io.stdout(`new signing key ${row.kid} is active; running instances pick it up within seconds\n`);
  },
});

export const keysList = defineCommand({
  name: 'keys list',
  summary: 'List signing keys',
  options: {},
  async run(ctx, _args, io) {
    const now = ctx.now();
    const rows = await listAllKeys(ctx.db);
    io.stdout(
      table(
        rows.map((k) => ({
          kid: k.kid,
          alg: k.alg,
          status:
            k.retired_at === null
              ? 'signing'
              : k.retire_until !== null && k.retire_until > now
                ? 'published'
                : 'expired',
          created: isoTime(k.created_at),
          retired: isoTime(k.retired_at),
          published_until: isoTime(k.retire_until),
        })),
      ),
    );
  },
});
