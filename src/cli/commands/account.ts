import {
  AccountInputError,
  AccountRuleError,
  createAccount,
  DEFAULT_JOIN_ROLE,
  EmailTakenError,
  normaliseEmail,
} from '../../accounts/accounts.js';
import { recordAudit } from '../../audit/audit.js';
import { hashPassword, passwordProblem } from '../../crypto/password.js';
import type { Role } from '../../storage/schema.js';
import {
  type CliIo,
  CommandError,
  defineCommand,
  isoTime,
  readSecretFromStdin,
  table,
  UsageError,
} from '../command.js';

export const ROLES: readonly Role[] = ['owner', 'admin'];

/** The password piped in, or exit 2 saying how to pipe one. */
async function passwordFromStdin(io: CliIo, command: string): Promise<string> {
  const password = await readSecretFromStdin(io);
  if (password === '') {
    throw new UsageError(
      `no password on standard input; pipe it in: printf '%s\\n' '<password>' | schoolauth ${command} … --password-stdin`,
    );
  }
  const problem = passwordProblem(password);
  if (problem) throw new UsageError(problem);
  return password;
}

/** Account and school rule errors for the CLI: bad input is a usage error (exit 2), a conflict with what exists is not (exit 1). */
export function accountFailure(error: unknown): unknown {
  if (error instanceof AccountInputError) return new UsageError(error.message);
  if (error instanceof AccountRuleError) return new CommandError(error.message);
  return error;
}

/** The account with this email, or exit 1 saying there is none (exit 2 for a malformed email). */
export async function existingAccount(ctx: Parameters<typeof accountList.run>[0], email: string) {
  let normalised: string;
  try {
    normalised = normaliseEmail(email);
  } catch (error) {
    throw accountFailure(error);
  }
  const account = await ctx.store.accounts.findByEmail(normalised);
  if (!account) throw new CommandError(`no account with email ${normalised}`);
  return account;
}

export const accountCreate = defineCommand({
  name: 'account create',
  summary: `Create an account in a school: as ${DEFAULT_JOIN_ROLE} (or --role) in an existing school, as owner of a new one (give --school-name)`,
  options: {
    email: { type: 'string', required: true, description: 'sign-in email' },
    name: { type: 'string', required: true, description: 'display name' },
    school: { type: 'string', required: true, description: 'school slug' },
    'password-stdin': {
      type: 'boolean',
      required: true,
      description: 'read the password from standard input',
    },
    'school-name': {
      type: 'string',
      description: 'display name of the school, when it does not exist yet (it is then created)',
    },
    role: {
      type: 'string',
      choices: ROLES,
      description: `role in an existing school (default: ${DEFAULT_JOIN_ROLE}); the first account of a new school is its owner`,
    },
  },
  async run(ctx, args, io) {
    if (args['school-name'] === undefined && !(await ctx.store.school.find(args.school!))) {
      throw new UsageError(
        `school "${args.school}" does not exist yet; to create it with this account as its owner, add --school-name "<display name>"`,
      );
    }
    const password = await passwordFromStdin(io, 'account create');
    try {
      const { account, school, schoolCreated, role } = await createAccount(
        ctx.store,
        {
          email: args.email!,
          name: args.name!,
          password,
          school: args.school!,
          ...(args['school-name'] !== undefined ? { schoolName: args['school-name'] } : {}),
          ...(args.role ? { role: args.role as Role } : {}),
        },
        ctx.now(),
      );
      await recordAudit(
        ctx.store,
        { kind: 'account.created', accountId: account.id, detail: { school: school.slug, role } },
        ctx.now(),
      );
      const how = schoolCreated
        ? `in the new school ${school.slug} ("${school.name}") as its owner`
        : `in school ${school.slug} as ${role}${args.role ? '' : ' (the default role; --role owner makes an owner)'}`;
      io.stdout(`created account ${account.email} (${account.id}) ${how}\n`);
    } catch (error) {
      if (error instanceof EmailTakenError) {
        const role = args.role ? ` --role ${args.role}` : '';
        throw new CommandError(
          `${error.message}; to add that person to school ${args.school}, run: schoolauth account join --email ${normaliseEmail(args.email!)} --school ${args.school}${role}`,
        );
      }
      throw accountFailure(error);
    }
  },
});

export const accountList = defineCommand({
  name: 'account list',
  summary: 'List accounts with their role in each school',
  options: {},
  async run(ctx, _args, io) {
    const [rows, memberships] = await Promise.all([
      ctx.store.accounts.list(),
      ctx.store.accounts.listMemberships(),
    ]);
    const schools = new Map<string, string[]>();
    for (const m of memberships) {
      schools.set(m.account_id, [...(schools.get(m.account_id) ?? []), `${m.slug} (${m.role})`]);
    }
    io.stdout(
      table(
        rows.map((a) => ({
          email: a.email,
          name: a.name,
          id: a.id,
          schools: (schools.get(a.id) ?? []).join(', '),
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
    await ctx.store.accounts.disable(account.id, now);
    await recordAudit(ctx.store, { kind: 'account.disabled', accountId: account.id }, now);
    io.stdout(`disabled ${account.email}; its sessions and tokens were revoked\n`);
  },
});

export const accountResetPassword = defineCommand({
  name: 'account reset-password',
  summary:
    'Set a new password (read from standard input), end the account’s sessions and revoke every app’s access (unless --keep-apps)',
  options: {
    email: { type: 'string', required: true, description: 'the account email' },
    'password-stdin': {
      type: 'boolean',
      required: true,
      description: 'read the password from standard input',
    },
    'keep-apps': {
      type: 'boolean',
      description:
        'keep the apps the person let in (grants, tokens, remembered consents); by default they are revoked, since a reset after a suspected compromise must also shut out an app the attacker connected',
    },
  },
  async run(ctx, args, io) {
    const account = await existingAccount(ctx, args.email!);
    const password = await passwordFromStdin(io, 'account reset-password');
    const passwordHash = await hashPassword(password);
    const now = ctx.now();
    const keepApps = args['keep-apps'] === true;
    const ended = await ctx.store.accounts.resetPassword(account.id, passwordHash, now, keepApps);
    await recordAudit(
      ctx.store,
      {
        kind: 'account.password_reset',
        accountId: account.id,
        detail: {
          sessions_ended: ended.sessions,
          apps_revoked: ended.apps?.apps ?? 0,
          grants_revoked: ended.apps?.grants ?? 0,
          kept_apps: keepApps,
        },
      },
      now,
    );
    const sessions = `${ended.sessions} sign-in session${ended.sessions === 1 ? '' : 's'} ended`;
    const apps = ended.apps
      ? `${ended.apps.apps} app${ended.apps.apps === 1 ? '' : 's'} revoked (${ended.apps.grants} grant${ended.apps.grants === 1 ? '' : 's'} with their tokens, and remembered consents)`
      : 'apps kept (--keep-apps): their grants and tokens still work';
    io.stdout(`password of ${account.email} changed; ${sessions}; ${apps}\n`);
  },
});
