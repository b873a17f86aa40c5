import { createSchool } from '../../accounts/accounts.js';
import { defineCommand, isoTime, table } from '../command.js';
import { accountFailure } from './account.js';

export const schoolCreate = defineCommand({
  name: 'school create',
  summary: 'Create a school (slug and display name)',
  options: {
    slug: {
      type: 'string',
      required: true,
      description: 'URL-safe identifier: lower-case letters, digits, inner hyphens',
    },
    name: { type: 'string', required: true, description: 'display name, such as "Maths Academy"' },
  },
  async run(ctx, args, io) {
    try {
      const school = await createSchool(ctx.store, { slug: args.slug!, name: args.name! }, ctx.now());
      io.stdout(`created school ${school.slug} (${school.id})\n`);
    } catch (error) {
      throw accountFailure(error);
    }
  },
});

export const schoolList = defineCommand({
  name: 'school list',
  summary: 'List schools',
  options: {},
  async run(ctx, _args, io) {
    const rows = await ctx.store.school.list();
    io.stdout(
      table(rows.map((s) => ({ slug: s.slug, name: s.name, id: s.id, created: isoTime(s.created_at) }))),
    );
  },
});
