import { recordAudit } from '../../audit/audit.js';
import type { AppContext } from '../../context.js';
import { SIGNING_ALGS, type SigningAlg } from '../../crypto/signing-key.js';
import {
  KEY_RELOAD_INTERVAL,
  keyState,
  type Rotation,
  RotationPending,
  rotateKeys,
} from '../../signing-keys/key-store.js';
import { type CliIo, CommandError, defineCommand, isoTime, table } from '../command.js';

/** "2026-01-31T12:00:00Z (in 65 s)": a moment and how far away it is. */
function moment(epoch: number, now: number): string {
  const delta = epoch - now;
  return `${isoTime(epoch)} (${delta >= 0 ? `in ${delta} s` : `${-delta} s ago`})`;
}

export const keysRotate = defineCommand({
  name: 'keys rotate',
  summary:
    'Publish a new signing key of each algorithm now; it signs once cached JWKS copies have expired, and the key it replaces stays published until its ID tokens expire',
  options: {
    alg: {
      type: 'string',
      choices: [...SIGNING_ALGS],
      description: 'rotate the key of this algorithm only (default: every algorithm)',
    },
  },
  async run(ctx, args, io) {
    const algs = args.alg ? [args.alg as SigningAlg] : SIGNING_ALGS;
    const pending: RotationPending[] = [];
    for (const alg of algs) {
      try {
        const rotation = await rotateKeys(
          ctx.store,
          {
            idTokenTtl: ctx.config.idTokenTtl,
            keyEncryptionSecret: ctx.config.keyEncryptionSecret,
            jwksMaxAge: ctx.config.jwksMaxAge,
            now: ctx.now,
          },
          alg,
        );
        await announce(ctx, rotation, io);
      } catch (error) {
        if (!(error instanceof RotationPending)) throw error;
        pending.push(error);
      }
    }
    if (pending.length > 0) {
      const waiting = pending.map(
        ({ pending: key }) =>
          `signing key ${key.kid} (${key.alg}) already waits to sign from ${moment(key.activates_at, ctx.now())}`,
      );
      throw new CommandError(
        `${waiting.join('; ')}; rotate ${pending.length === 1 ? 'it' : 'them'} again after that`,
      );
    }
  },
});

async function announce(ctx: AppContext, { key, previousUntil }: Rotation, io: CliIo): Promise<void> {
  const now = key.created_at;
  await recordAudit(
    ctx.store,
    { kind: 'key.rotated', detail: { kid: key.kid, alg: key.alg, activates_at: key.activates_at } },
    now,
  );
  await ctx.store.instances.announceKeysChanged();
  io.stdout(
    `new signing key ${key.kid}: ${key.alg}, published now (every running instance serves it within ${KEY_RELOAD_INTERVAL} s)\n` +
      `it signs ID tokens from ${moment(key.activates_at, now)}, once JWKS copies cached for up to ${ctx.config.jwksMaxAge} s have expired\n` +
      `the current ${key.alg} key signs until then and stays published until ${moment(previousUntil, now)}, when its last ID tokens have expired\n`,
  );
}

const NEXT_STATE = { next: 'current', current: 'previous', previous: 'retired', retired: '' } as const;

export const keysList = defineCommand({
  name: 'keys list',
  summary: 'List signing keys: state (next, current, previous, retired) and when it changes',
  options: {},
  async run(ctx, _args, io) {
    const now = ctx.now();
    const rows = await ctx.store.signingKeys.listAll();
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
