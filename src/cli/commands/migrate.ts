import { defineCommand } from '../command.js';

/** bootstrap() already migrated; this command reports that the schema is current. */
export const migrate = defineCommand({
  name: 'migrate',
  summary: 'Bring the database schema up to date (also done at every start)',
  options: {},
  createsDatabase: true,
  async run(ctx, _args, io) {
    io.stdout(`database schema is up to date (${ctx.storage.dialect})\n`);
  },
});
