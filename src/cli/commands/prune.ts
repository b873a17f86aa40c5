import { prune } from '../../ops/prune.js';
import { pruneDeviceAuthorizations } from '../../ops/prune-device.js';
import { CommandError, defineCommand } from '../command.js';

export const pruneCommand = defineCommand({
  name: 'prune',
  summary:
    'Delete expired codes, tokens, sessions and rate-limit rows, dead grants and abandoned dynamic clients',
  options: {},
  async run(ctx, _args, io) {
    const outcome = await ctx.store.instances.tryAlone('prune', async () => ({
      ...(await prune(ctx.storage.maintenanceStore.upkeep, ctx.config, ctx.now())),
      deviceAuthorizations: await pruneDeviceAuthorizations(ctx.storage.maintenanceStore, ctx.now()),
    }));
    if (!outcome.ran) throw new CommandError('another instance is pruning right now; try again in a minute');
    const c = outcome.result;
    io.stdout(
      `pruned: ${c.codes} authorization codes, ${c.accessTokens} access tokens, ${c.refreshTokens} refresh tokens, ` +
        `${c.grants} grants, ${c.sessions} sessions, ${c.rateLimits} rate-limit rows, ${c.clients} dynamic clients, ` +
        `${c.deviceAuthorizations} device authorizations\n`,
    );
  },
});
