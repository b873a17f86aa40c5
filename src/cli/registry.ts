import type { Command } from './command.js';
import { accountCreate, accountDisable, accountList, accountResetPassword } from './commands/account.js';
import { demo } from './commands/demo.js';
import { keysList, keysRotate } from './commands/keys.js';
import { migrate } from './commands/migrate.js';
import { schoolCreate, schoolList } from './commands/school.js';

/** Every command of `schoolauth`, in the order `--help` lists them. */
export const COMMANDS: readonly Command[] = [
  accountCreate,
  accountList,
  accountDisable,
  accountResetPassword,
  schoolCreate,
  schoolList,
  keysRotate,
  keysList,
  migrate,
  demo,
] as unknown as Command[];
