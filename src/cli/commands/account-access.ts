/**
 * Giving access back and to more: `account join` adds an existing account to another school
 * (`account create` refuses an email that exists), `account enable` undoes `account disable`.
 */
import { DEFAULT_JOIN_ROLE, joinSchool } from '../../accounts/accounts.js';
import { recordAudit } from '../../audit/audit.js';
import type { Role } from '../../storage/schema.js';
import { defineCommand } from '../command.js';
import { accountFailure, existingAccount, ROLES } from './account.js';

export const accountJoin = defineCommand({
  name: 'account join',
  summary: `Add an existing account to another school, as ${DEFAULT_JOIN_ROLE} (or --role); it keeps its password and other schools`,
  options: {
    email: { type: 'string', required: true, description: 'the account email' },
    school: { type: 'string', required: true, description: 'slug of the school to join' },
    role: {
      type: 'string',
      choices: ROLES,
      description: `role in that school (default: ${DEFAULT_JOIN_ROLE})`,
    },
  },
  async run(ctx, args, io) {
    const account = await existingAccount(ctx, args.email!);
    const role = (args.role as Role | undefined) ?? DEFAULT_JOIN_ROLE;
    const now = ctx.now();
    const slug = await joinSchool(ctx.store, account, args.school!, role, now).then(
      (joined) => joined.school.slug,
      (error: unknown) => {
        throw accountFailure(error);
      },
    );
    await recordAudit(
      ctx.store,
      { kind: 'account.joined', accountId: account.id, detail: { school: slug, role } },
      now,
    );
    io.stdout(
      `added ${account.email} to school ${slug} as ${role}${args.role ? '' : ' (the default role; --role owner makes an owner)'}\n`,
    );
  },
});

export const accountEnable = defineCommand({
  name: 'account enable',
  summary:
    'Let a disabled account sign in again (the sessions and tokens revoked when it was disabled stay revoked)',
  options: { email: { type: 'string', required: true, description: 'the account email' } },
  async run(ctx, args, io) {
    const account = await existingAccount(ctx, args.email!);
    if (!account.disabled) {
      io.stdout(`${account.email} is not disabled; nothing changed\n`);
      return;
    }
    const now = ctx.now();
    await ctx.store.accounts.update(account.id, { disabled: 0 }, now);
    await recordAudit(ctx.store, { kind: 'account.enabled', accountId: account.id }, now);
    io.stdout(
      `enabled ${account.email}: it can sign in again (the sessions and tokens revoked when it was disabled stay revoked)\n`,
    );
  },
});
