/**
 * What an operator must hear about at start, as warn lines: a database that was just created (a
 * typo in DATABASE_URL or DATA_DIR would otherwise start over silently, empty), files at rest that
 * other local users can read (the database holds the signing key, password hashes and personal
 * data; uploads are school files), and a public issuer whose signing key is stored unencrypted.
 */
import { type Stats, statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Bootstrapped } from '../bootstrap.js';
import { isLoopbackIssuer } from '../config.js';
import { maskDatabaseUrl } from '../storage/postgres-probe.js';

export interface StartUpWarning {
  readonly fields: Readonly<Record<string, string | number>>;
  readonly message: string;
}

/** Permission bits for group and others: any of them lets another local user in. */
const GROUP_OTHER = 0o077;

const octal = (mode: number) => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** A warning when `path` exists and group or others have any permission on it. */
function exposed(path: string, what: string): StartUpWarning | undefined {
  const stats = statOrUndefined(path);
  if (!stats || (stats.mode & GROUP_OTHER) === 0) return undefined;
  const fix = stats.isDirectory() ? 'chmod 700' : 'chmod 600';
  return {
    fields: { path, mode: octal(stats.mode) },
    message: `${what} ${path} is open to other local users (mode ${octal(stats.mode)}): run \`${fix} ${path}\``,
  };
}

/**
 * The uploads directory, and when it is open to others, one warning for all the uploads they can
 * read (how many, and the first). Behind a private directory no file can be reached, so the
 * files are looked at only then: a start never stats every upload for nothing.
 */
async function uploadWarnings(dir: string): Promise<Array<StartUpWarning | undefined>> {
  const directory = exposed(dir, 'The uploads directory');
  if (!directory) return [];
  const open: string[] = [];
  for (const name of await readdir(dir).catch(() => [])) {
    const stats = await stat(join(dir, name)).catch(() => undefined);
    if (stats && (stats.mode & GROUP_OTHER) !== 0) open.push(join(dir, name));
  }
  if (open.length === 0) return [directory];
  return [
    directory,
    {
      fields: { dir, files: open.length, first: open[0]! },
      message: `${open.length} uploaded file(s) under ${dir} are open to other local users (e.g. ${open[0]}): run \`chmod 600 ${dir}/*\``,
    },
  ];
}

/** Said by the server and the CLI alike: either may be the one that created the database. */
export function newDatabaseWarning(ctx: Bootstrapped): StartUpWarning | undefined {
  const { storage, config } = ctx;
  if (!ctx.newDatabase || !storage.persistent) return undefined;
  const where = storage.file ?? maskDatabaseUrl(config.databaseUrl);
  // A mistyped ?schema= starts afresh beside the real data: name where schoolauth's tables are.
  const others = ctx.otherSchemas;
  const shown = others
    .slice(0, 5)
    .map((s) => `"${s}"`)
    .join(', ');
  const elsewhere =
    others.length === 0
      ? ''
      : ` Schema${others.length === 1 ? '' : 's'} ${shown}${others.length > 5 ? ` and ${others.length - 5} more` : ''} of this database ${others.length === 1 ? 'has' : 'have'} schoolauth tables: if the data is there, use ?schema=${others[0]}.`;
  return {
    fields: { database: where },
    message: `NEW DATABASE: ${where} had no schoolauth tables; they were created just now. If you expected existing data, stop and check DATABASE_URL${storage.file ? ' and DATA_DIR' : ''}.${elsewhere}`,
  };
}

function unencryptedKeyWarning(ctx: Bootstrapped): StartUpWarning | undefined {
  const { issuer, keyEncryptionSecret } = ctx.config;
  if (keyEncryptionSecret !== undefined || isLoopbackIssuer(issuer)) return undefined;
  return {
    fields: { issuer },
    message: `KEY_ENCRYPTION_SECRET is not set: the private key that signs ID tokens for ${issuer} is stored unencrypted in the database, so whoever reads the database or a backup of it can sign tokens as this issuer. Set KEY_ENCRYPTION_SECRET (32+ random characters, the same on every instance).`,
  };
}

/**
 * Said by the server and the CLI alike, whichever started first with KEY_ENCRYPTION_SECRET: keys
 * that were in clear are sealed now, but a backup or copy taken before still holds them in clear.
 */
export function sealedKeysNotice(ctx: Bootstrapped): StartUpWarning | undefined {
  const { sealedKeys } = ctx;
  if (sealedKeys.length === 0) return undefined;
  const kids = sealedKeys.map((k) => `${k.kid} (${k.alg})`).join(', ');
  return {
    fields: { sealed: sealedKeys.length, kids: sealedKeys.map((k) => k.kid).join(',') },
    message: `KEY_ENCRYPTION_SECRET is set: ${sealedKeys.length} private signing key(s) stored unencrypted were encrypted just now: ${kids}. Backups and copies of the database taken before still hold them in clear; if one may have leaked, run \`schoolauth keys rotate\`.`,
  };
}

/** A setting of an earlier version that is set but no longer read (config.ts REMOVED_SETTINGS). */
export function ignoredSettingWarnings(ctx: Pick<Bootstrapped, 'config'>): StartUpWarning[] {
  return ctx.config.ignoredSettings.map((name) => ({
    fields: { setting: name },
    message: `${name} is set but no longer used (see docs/configuration.md "Removed settings"); it is ignored: remove it.`,
  }));
}

/** Every start-up warning, in the order an operator should act on them. */
export async function startUpWarnings(ctx: Bootstrapped): Promise<StartUpWarning[]> {
  const { config, storage } = ctx;
  const dataDir = resolve(config.dataDir);
  const warnings = [
    newDatabaseWarning(ctx),
    sealedKeysNotice(ctx),
    exposed(dataDir, 'DATA_DIR'),
    ...(storage.file
      ? [
          exposed(storage.file, 'The database'),
          exposed(`${storage.file}-wal`, 'The database log'),
          exposed(`${storage.file}-shm`, 'The database index'),
        ]
      : []),
    ...(await uploadWarnings(join(dataDir, 'uploads'))),
    unencryptedKeyWarning(ctx),
    ...ignoredSettingWarnings(ctx),
  ];
  return warnings.filter((w): w is StartUpWarning => w !== undefined);
}
