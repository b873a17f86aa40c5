import type { Command } from '../command.js';
import { defineCommand } from '../command.js';
import { bashCompletion, zshCompletion } from '../completion.js';

/** `schoolauth completion bash|zsh`; `commands` is read when it runs (the registry includes this command). */
export function completionCommand(commands: () => readonly Command[]) {
  return defineCommand({
    name: 'completion',
    summary:
      'Print a shell completion script: eval "$(schoolauth completion bash)", or source <(schoolauth completion zsh)',
    options: {},
    argument: { name: 'shell', choices: ['bash', 'zsh'] },
    bare: true,
    async run(_config, _args, io, shell) {
      io.stdout(shell === 'zsh' ? zshCompletion(commands()) : bashCompletion(commands()));
    },
  });
}
