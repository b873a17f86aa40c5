import { recordAudit } from '../../audit/audit.js';
import { notifyKeysChanged } from '../../ops/key-sync.js';
import { KEY_RELOAD_INTERVAL, keyState, RotationPending, rotateKeys } from '../../signing-keys/key-store.js';
import { listAllKeys } from '../../storage/signing-keys.repository.js';
import { CommandError, defineCommand, isoTime, table } from '../command.js';

/** "2026-01-31T12:00:00Z (in 65 s)": a moment and how far away it is. */
function moment(epoch: number, now: number): string {
  const delta = epoch - now;
  return `${isoTime(epoch)} (${delta >= 0 ? `in ${delta} s` : `${-delta} s ago`})`;
}

export const keysRotate = defineCommand({
  name: 'keys rotate',
  summary:
    'Publish a new signing key now; it signs once cached JWKS copies have expired, and the current key stays published until its ID tokens expire',
  options: {},
  async run(ctx, _args, io) {
    let rotation: Awaited<ReturnType<typeof rotateKeys>>;
    try {
      rotation = await rotateKeys(ctx.db, {
        idTokenTtl: ctx.config.idTokenTtl,
        keyEncryptionSecret: ctx.config.keyEncryptionSecret,
        jwksMaxAge: ctx.config.jwksMaxAge,
        now: ctx.now,
      });
    } catch (error) {
      if (!(error instanceof RotationPending)) throw error;
      throw new CommandError(
        `signing key ${error.pending.kid} already waits to sign from ${moment(error.pending.activates_at, ctx.now())}; rotate again after that`,
      );
    }
    const { key, previousUntil } = rotation;
    const now = key.created_at;
    await recordAudit(
      ctx.db,
      { kind: 'key.rotated', detail: { kid: key.kid, activates_at: key.activates_at } },
      now,
    );
    await notifyKeysChanged(ctx.db);
    io.stdout(
      `new signing key ${key.kid}: published now (every running instance serves it within ${KEY_RELOAD_INTERVAL} s)\n` +
        `it signs ID tokens from ${moment(key.activates_at, now)}, once JWKS copies cached for up to ${ctx.config.jwksMaxAge} s have expired\n` +
        `the current key signs until then and stays published until ${moment(previousUntil, now)}, when its last ID tokens have expired\n`,
    );
  },
});

const NEXT_STATE = { next: 'current', current: 'previous', previous: 'retired', retired: '' } as const;

export const keysList = defineCommand({
  name: 'keys list',
  summary: 'List signing keys: state (next, current, previous, retired) and when it changes',
  options: {},
  async run(ctx, _args, io) {
    const now = ctx.now();
    const rows = await listAllKeys(ctx.db);
    io.stdout(
      table(
        rows.map((k) => {
          const { state, until } = keyState(k, now);
          return {
            kid: k.kid,
            alg: k.alg,
            state,
            changes: until === null ? '' : `${NEXT_STATE[state]} at ${moment(until, now)}`,
            created: isoTime(k.created_at),
          };
        }),
      ),
    );
  },
});
