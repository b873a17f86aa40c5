/**
 * GET /api/v1/schools/{school}/analytics (analytics:read): computed on request from the orders and
 * students tables, never stored, so it cannot disagree with them.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import type { Store } from '../storage/store.js';
import { schoolParam } from './schemas.js';
import { loadSchool, requireRead } from './school-access.js';

const count = Type.Integer({ minimum: 0 });

const analyticsSchema = Type.Object({
  students: Type.Object({ total: count, active: count }),
  orders: Type.Object({ total: count, paid: count, pending: count, refunded: count }),
  revenue: Type.Array(
    Type.Object({
      currency: Type.String(),
      paid_cents: count,
      refunded_cents: count,
      net_cents: Type.Integer(),
    }),
    { description: 'Per currency' },
  ),
  average_order_cents: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Mean paid order value (first currency); null without paid orders',
  }),
});

async function studentCounts(store: Store, schoolId: string) {
  const rows = await store.school.studentCounts(schoolId);
  const by = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
  return { total: rows.reduce((sum, r) => sum + Number(r.n), 0), active: by('active') };
}

async function orderFigures(store: Store, schoolId: string) {
  const rows = await store.school.orderFigures(schoolId);
  const count = (status: string) =>
    rows.filter((r) => r.status === status).reduce((sum, r) => sum + Number(r.n), 0);
  const currencies = [...new Set(rows.map((r) => r.currency))].sort();
  const cents = (currency: string, status: string) =>
    Number(rows.find((r) => r.currency === currency && r.status === status)?.cents ?? 0);
  const revenue = currencies.map((currency) => {
    const paid = cents(currency, 'paid');
    const refunded = cents(currency, 'refunded');
    return { currency, paid_cents: paid, refunded_cents: refunded, net_cents: paid - refunded };
  });
  const first = currencies[0];
  const paidInFirst = rows.find((r) => r.currency === first && r.status === 'paid');
  const average =
    paidInFirst && Number(paidInFirst.n) > 0
      ? Math.round(Number(paidInFirst.cents) / Number(paidInFirst.n))
      : null;
  return {
    orders: {
      total: count('paid') + count('pending') + count('refunded'),
      paid: count('paid'),
      pending: count('pending'),
      refunded: count('refunded'),
    },
    revenue,
    average_order_cents: average,
  };
}

export function analyticsRoutes(untyped: FastifyInstance, ctx: AppContext): void {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/schools/:school/analytics', {
    config: { access: { scope: 'analytics:read', anonymous: false } },
    schema: {
      tags: ['Analytics'],
      summary: "Get a school's sales and student figures",
      description: 'Computed from orders and students at request time.',
      params: Type.Object({ school: schoolParam }),
      response: { 200: analyticsSchema },
    },
    handler: async (request) => {
      const access = await loadSchool(ctx.store, request.params.school, request.principal);
      requireRead(access, false, 'analytics');
      const [students, orders] = await Promise.all([
        studentCounts(ctx.store, access.school.id),
        orderFigures(ctx.store, access.school.id),
      ]);
      return { students, ...orders };
    },
  });
}
