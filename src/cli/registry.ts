import type { Command } from './command.js';
import { accountCreate, accountDisable, accountList, accountResetPassword } from './commands/account.js';
import { accountEnable, accountJoin } from './commands/account-access.js';
import { auditList } from './commands/audit.js';
import { backup } from './commands/backup.js';
import { clientCreate, clientDisable, clientEnable, clientList } from './commands/client.js';
import { clientBlock, clientClearRule, clientRules, clientTrust } from './commands/client-metadata-rules.js';
import { completionCommand } from './commands/completion.js';
import { demo } from './commands/demo.js';
import { keysList, keysRotate } from './commands/keys.js';
import { migrate } from './commands/migrate.js';
import { pruneCommand } from './commands/prune.js';
import { restore } from './commands/restore.js';
import { schoolCreate, schoolList } from './commands/school.js';

/** Every command of `schoolauth`, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  accountCreate,
  accountList,
  accountDisable,
  accountEnable,
  accountJoin,
  accountResetPassword,
  schoolCreate,
  schoolList,
  clientCreate,
  clientList,
  clientDisable,
  clientEnable,
  clientBlock,
  clientTrust,
  clientClearRule,
  clientRules,
  keysRotate,
  keysList,
  pruneCommand,
  auditList,
  migrate,
  backup,
  restore,
  demo,
  completionCommand(() => COMMANDS),
] as unknown as Command[];
