import { normaliseEmail } from '../../accounts/accounts.js';
import { AUDIT_KINDS } from '../../audit/audit.js';
import { defineCommand, isoTime, table, UsageError } from '../command.js';

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

function parseSince(value: string): number {
  const ms = ISO_8601.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw new UsageError(`--since must be an ISO-8601 time such as 2026-01-31T12:00:00Z`);
  return Math.floor(ms / 1000);
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return 100;
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 10000) {
    throw new UsageError('--limit must be a whole number from 1 to 10000');
  }
  return Number(value);
}

export const auditList = defineCommand({
  name: 'audit list',
  summary: 'List security events, newest first (sign-ins, consents, tokens, revocations, replays, keys)',
  options: {
    account: { type: 'string', description: 'only events of this account (email)' },
    client: { type: 'string', description: 'only events of this client_id' },
    since: { type: 'string', description: 'only events at or after this ISO-8601 time' },
    kind: { type: 'string', choices: AUDIT_KINDS, description: 'only events of this kind' },
    limit: { type: 'string', description: 'at most this many events (default 100)' },
  },
  async run(ctx, args, io) {
    const limit = parseLimit(args.limit);
    const since = args.since === undefined ? undefined : parseSince(args.since);
    let accountId: string | undefined;
    if (args.account !== undefined) {
      let email: string;
      try {
        email = normaliseEmail(args.account);
      } catch (error) {
        throw new UsageError((error as Error).message);
      }
      // An unknown email matches no event rather than failing: the account may have been deleted.
      accountId = (await ctx.store.accounts.findByEmail(email))?.id ?? `unknown:${email}`;
    }
    const rows = await ctx.store.audit.list({
      limit,
      ...(accountId !== undefined ? { accountId } : {}),
      ...(args.client !== undefined ? { clientId: args.client } : {}),
      ...(since !== undefined ? { since } : {}),
      ...(args.kind !== undefined ? { kind: args.kind } : {}),
    });
    io.stdout(
      table(
        rows.map((e) => ({
          at: isoTime(e.at),
          kind: e.kind,
          account: e.account_email ?? e.account_id,
          client: e.client_id,
          ip: e.ip,
          detail: e.detail === '{}' ? '' : e.detail,
        })),
      ),
    );
  },
});
