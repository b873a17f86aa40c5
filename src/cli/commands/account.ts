import { AccountRuleError, createAccount, normaliseEmail } from '../../accounts/accounts.js';
import { recordAudit } from '../../audit/audit.js';
import { hashPassword, passwordProblem } from '../../crypto/password.js';
import { findAccountByEmail, listAccounts, updateAccount } from '../../storage/accounts.repository.js';
import type { Role } from '../../storage/schema.js';
import { CommandError, defineCommand, isoTime, readSecretFromStdin, table, UsageError } from '../command.js';

const ROLES: readonly Role[] = ['owner', 'admin'];

async function existingAccount(ctx: Parameters<typeof accountList.run>[0], email: string) {
  let normalised: string;
  try {
    normalised = normaliseEmail(email);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const account = await findAccountByEmail(ctx.db, normalised);
  if (!account) throw new CommandError(`no account with email ${normalised}`);
  return account;
}

export const accountCreate = defineCommand({
  name: 'account create',
  summary: 'Create an account (and its school, with the account as owner, when the school does not exist)',
  options: {
    email: { type: 'string', required: true, description: 'sign-in email' },
    name: { type: 'string', required: true, description: 'display name' },
    school: { type: 'string', required: true, description: 'school slug' },
    'password-stdin': {
      type: 'boolean',
      required: true,
      description: 'read the password from standard input',
    },
    role: { type: 'string', description: 'owner or admin, for an existing school (default admin)' },
  },
  async run(ctx, args, io) {
    if (args.role !== undefined && !ROLES.includes(args.role as Role)) {
      throw new UsageError(`--role must be owner or admin, not "${args.role}"`);
    }
    const password = await readSecretFromStdin(io);
    try {
      const { account, school, schoolCreated } = await createAccount(
        ctx.db,
        {
          email: args.email!,
          name: args.name!,
          password,
          school: args.school!,
          ...(args.role ? { role: args.role as Role } : {}),
        },
        ctx.now(),
      );
      await recordAudit(
        ctx.db,
        { kind: 'account.created', accountId: account.id, detail: { school: school.slug } },
        ctx.now(),
      );
      io.stdout(
        `created account ${account.email} (${account.id}) in school ${school.slug}${schoolCreated ? ' (new school, as owner)' : ''}\n`,
      );
    } catch (error) {
      if (error instanceof AccountRuleError) throw new CommandError(error.message);
      throw error;
    }
  },
});

export const accountList = defineCommand({
  name: 'account list',
  summary: 'List accounts',
  options: {},
  async run(ctx, _args, io) {
    const rows = await listAccounts(ctx.db);
    io.stdout(
      table(
        rows.map((a) => ({
          email: a.email,
          name: a.name,
          id: a.id,
          school: a.schools,
          status: a.disabled ? 'disabled' : 'active',
          created: isoTime(a.created_at),
        })),
      ),
    );
  },
});

export const accountDisable = defineCommand({
  name: 'account disable',
  summary: 'Disable an account: it can no longer sign in, and its sessions and tokens stop working',
  options: { email: { type: 'string', required: true, description: 'the account email' } },
  async run(ctx, args, io) {
    const account = await existingAccount(ctx, args.email!);
    const now = ctx.now();
    await ctx.db.transaction().execute(async (trx) => {
      await updateAccount(trx, account.id, { disabled: 1 }, now);
      await trx.deleteFrom('sessions').where('account_id', '=', account.id).execute();
      await trx
        .updateTable('grants')
        .set({ revoked_at: now })
        .where('account_id', '=', account.id)
        .where('revoked_at', 'is', null)
        .execute();
      for (const t of ['access_tokens', 'refresh_tokens'] as const) {
        await trx
          .updateTable(t)
          .set({ revoked_at: now })
          .where('account_id', '=', account.id)
          .where('revoked_at', 'is', null)
          .execute();
      }
    });
    await recordAudit(ctx.db, { kind: 'account.disabled', accountId: account.id }, now);
    io.stdout(`disabled ${account.email}; its sessions and tokens were revoked\n`);
  },
});

export const accountResetPassword = defineCommand({
  name: 'account reset-password',
  summary: 'Set a new password (read from standard input) and end the account’s sessions',
  options: {
    email: { type: 'string', required: true, description: 'the account email' },
    'password-stdin': {
      type: 'boolean',
      required: true,
      description: 'read the password from standard input',
    },
  },
  async run(ctx, args, io) {
    const account = await existingAccount(ctx, args.email!);
    const password = await readSecretFromStdin(io);
    const problem = passwordProblem(password);
    if (problem) throw new CommandError(problem);
    const passwordHash = await hashPassword(password);
    await ctx.db.transaction().execute(async (trx) => {
      await updateAccount(trx, account.id, { password_hash: passwordHash }, ctx.now());
      await trx.deleteFrom('sessions').where('account_id', '=', account.id).execute();
    });
    await recordAudit(ctx.db, { kind: 'account.password_reset', accountId: account.id }, ctx.now());
    io.stdout(`password of ${account.email} changed; its sessions were ended\n`);
  },
});
