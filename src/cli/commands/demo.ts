import { seedDemoIfEmpty } from '../../demo/seed.js';
import { CommandError, defineCommand } from '../command.js';

export const demo = defineCommand({
  name: 'demo',
  summary: 'Seed the demo school and owner into an empty database and print the sign-in',
  options: {},
  createsDatabase: true,
  async run(ctx, _args, io) {
    const seeded = await seedDemoIfEmpty(ctx.store.instances, ctx.now());
    if (!seeded)
      throw new CommandError('the database already has accounts; the demo is seeded only into an empty one');
    io.stdout(`demo school seeded; sign in as ${seeded.email} with password ${seeded.password}\n`);
  },
});
