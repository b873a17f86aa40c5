/**
 * The one generic builder: a family definition becomes its list/get/create/update/delete routes.
 * Each handler is the same short pipeline — resolve the school and the caller's role, check the
 * parent row, run the generic query, answer the item — so every family behaves alike.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import type { Principal } from '../resource-server/principal.js';
import { type FamilyDefinition, type Operation, withArticle } from '../school/define.js';
import { newId, toColumns } from '../school/rows.js';
import type { Row, RowScope as Scope } from '../storage/contract/school.js';
import { decodeCursor, encodeCursor, toItem } from './codec.js';
import {
  ancestors,
  createBodySchema,
  itemSchema,
  type ListQuery,
  listQuerySchema,
  pageSchema,
  pageSize,
  paramsSchema,
  updateBodySchema,
} from './schemas.js';
import { loadSchool, requireRead, requireWrite, type SchoolAccess } from './school-access.js';

type Params = Record<string, string>;

export function collectionPath(def: FamilyDefinition): string {
  const parents = ancestors(def)
    .map((a) => `/${a.segment}/:${a.param}`)
    .join('');
  return `/schools/:school${parents}/${def.segment}`;
}

export function itemPath(def: FamilyDefinition): string {
  return `${collectionPath(def)}/:${def.param}`;
}

/** The parent row must exist in this school (and under its own parent): else 404. */
async function parentScope(
  ctx: AppContext,
  def: FamilyDefinition,
  params: Params,
  school: SchoolAccess,
  publicOnly: boolean,
): Promise<Scope> {
  const scope: Scope = { schoolId: school.school.id, publicOnly };
  if (!def.parent) return scope;
  const parent = def.parent.family;
  const parentId = params[parent.param]!;
  const grand = parent.parent
    ? { column: parent.parent.column, id: params[parent.parent.family.param]! }
    : undefined;
  if (!(await ctx.store.school.rowExists(parent.table, scope.schoolId, parentId, grand)))
    throw notFound(`${parent.singular} "${parentId}"`);
  return { ...scope, parentId };
}

/** Every `ref` field that is set must name a row of the same school (never another school's). */
async function checkRefs(
  ctx: AppContext,
  def: FamilyDefinition,
  schoolId: string,
  body: Record<string, unknown>,
): Promise<void> {
  for (const [name, f] of Object.entries(def.fields)) {
    const value = body[name];
    if (f.kind !== 'ref' || typeof value !== 'string' || !f.ref) continue;
    if (!(await ctx.store.school.rowExists(f.ref, schoolId, value))) {
      throw badRequest(
        `field "${name}" names no ${f.ref.replaceAll('_', ' ')} row "${value}" in this school`,
      );
    }
  }
}

/** What a family route's schemas give its handler (the routes below type it from the same schemas). */
interface FamilyRequest {
  readonly principal: Principal;
  readonly params: Params;
}
type ListRequest = FamilyRequest & { readonly query: ListQuery };
type WriteRequest = FamilyRequest & { readonly body: Record<string, unknown> };

function handlers(ctx: AppContext, def: FamilyDefinition) {
  const hasPublic = def.publicWhen !== undefined;
  const read = async (request: FamilyRequest) => {
    const { params } = request;
    const school = await loadSchool(ctx.store, params.school!, request.principal);
    const view = requireRead(school, hasPublic, def.plural);
    return { params, view, scope: await parentScope(ctx, def, params, school, view === 'public') };
  };
  const write = async (request: FamilyRequest) => {
    const { params } = request;
    const school = await loadSchool(ctx.store, params.school!, request.principal);
    requireWrite(school, def.writers, def.plural);
    return { params, scope: await parentScope(ctx, def, params, school, false) };
  };
  const fetchItem = async (scope: Scope, id: string, publicView: boolean) => {
    const row = await ctx.store.school.getRow(def, scope, id);
    if (!row) throw notFound(`${def.singular} "${id}"`);
    return toItem(def, row, publicView);
  };
  return {
    list: async (request: ListRequest) => {
      const { view, scope } = await read(request);
      const { query } = request;
      const after = decodeCursor(query.cursor);
      const page = await ctx.store.school.listRows(def, scope, {
        limit: pageSize(query),
        ...(after ? { after } : {}),
      });
      const items = page.rows.map((row) => toItem(def, row, view === 'public'));
      const last = page.rows.at(-1);
      return { items, next_cursor: page.more && last ? encodeCursor(String(last.id)) : null };
    },
    get: async (request: FamilyRequest) => {
      const { params, view, scope } = await read(request);
      return fetchItem(scope, params[def.param]!, view === 'public');
    },
    create: async (request: WriteRequest) => {
      const { scope } = await write(request);
      const { body } = request;
      await checkRefs(ctx, def, scope.schoolId, body);
      const id = newId(def.idPrefix);
      const now = ctx.now();
      const row: Row = {
        ...toColumns(def, body),
        id,
        school_id: scope.schoolId,
        created_at: now,
        updated_at: now,
      };
      if (def.parent) row[def.parent.column] = scope.parentId!;
      await ctx.store.school.insertRow(def, row);
      return fetchItem(scope, id, false);
    },
    update: async (request: WriteRequest) => {
      const { params, scope } = await write(request);
      const { body } = request;
      await checkRefs(ctx, def, scope.schoolId, body);
      const id = params[def.param]!;
      const changes = { ...toColumns(def, body), updated_at: ctx.now() };
      if (!(await ctx.store.school.updateRow(def, scope, id, changes)))
        throw notFound(`${def.singular} "${id}"`);
      return fetchItem(scope, id, false);
    },
    delete: async (request: FamilyRequest) => {
      const { params, scope } = await write(request);
      const id = params[def.param]!;
      if (!(await ctx.store.school.deleteRow(def, scope, id))) throw notFound(`${def.singular} "${id}"`);
      return undefined;
    },
  } satisfies Record<Operation, (request: never) => Promise<unknown>>;
}

/** Registers the family's routes on an /api/v1 scope (the guard and OpenAPI security come from `access`). */
export function registerFamily(untyped: FastifyInstance, ctx: AppContext, def: FamilyDefinition): void {
  const app = untyped.withTypeProvider<TypeBoxTypeProvider>();
  const h = handlers(ctx, def);
  const readAccess = { scope: def.scopes.read, anonymous: def.publicWhen !== undefined };
  const writeScope = def.scopes.write;
  const base = { tags: [def.tag] };
  const item = itemSchema(def);
  const has = (op: Operation) => def.operations.includes(op);
  const publicNote = def.publicWhen
    ? ' Anonymous readers and people outside the school get the public ones.'
    : '';
  if (has('list')) {
    app.get(collectionPath(def), {
      config: { access: readAccess },
      schema: {
        ...base,
        summary: `List ${def.plural}`,
        description: `A page of ${def.plural}.${publicNote}`,
        params: paramsSchema(def, false),
        querystring: listQuerySchema,
        response: { 200: pageSchema(def) },
      },
      handler: h.list,
    });
  }
  if (has('get')) {
    app.get(itemPath(def), {
      config: { access: readAccess },
      schema: {
        ...base,
        summary: `Get ${withArticle(def.singular)}`,
        description: `One ${def.singular}.${publicNote}`,
        params: paramsSchema(def, true),
        response: { 200: item },
      },
      handler: h.get,
    });
  }
  if (!writeScope) return;
  const writeAccess = { scope: writeScope, anonymous: false };
  if (has('create')) {
    app.post(collectionPath(def), {
      config: { access: writeAccess },
      schema: {
        ...base,
        summary: `Create ${withArticle(def.singular)}`,
        params: paramsSchema(def, false),
        body: createBodySchema(def),
        response: { 201: item },
      },
      handler: async (request, reply) => reply.code(201).send(await h.create(request)),
    });
  }
  if (has('update')) {
    app.patch(itemPath(def), {
      config: { access: writeAccess },
      schema: {
        ...base,
        summary: `Change ${withArticle(def.singular)}`,
        description: 'Send only the fields to change.',
        params: paramsSchema(def, true),
        body: updateBodySchema(def),
        response: { 200: item },
      },
      handler: h.update,
    });
  }
  if (has('delete')) {
    app.delete(itemPath(def), {
      config: { access: writeAccess },
      schema: {
        ...base,
        summary: `Delete ${withArticle(def.singular)}`,
        params: paramsSchema(def, true),
        response: { 204: { type: 'null', description: 'Deleted' } },
      },
      handler: async (request, reply) => {
        await h.delete(request);
        return reply.code(204).send();
      },
    });
  }
}
