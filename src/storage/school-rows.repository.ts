/**
 * The generic queries behind every family of the school API: list a page, get, insert, update,
 * delete, always inside one school (and one parent row for nested families). Kysely sees the
 * family tables through a dynamic view because the table is chosen by the family at run time.
 */
import type { Kysely } from 'kysely';
import type { ApiTableName } from './api-schema.js';
import type { FamilyTable, Row, RowScope as Scope } from './contract/school.js';
import type { Database } from './schema.js';

type FamilyDefinition = FamilyTable;
type DynamicDb = Record<string, Row>;

function dyn(db: Kysely<Database>): Kysely<DynamicDb> {
  return db as unknown as Kysely<DynamicDb>;
}

function scoped(db: Kysely<Database>, def: FamilyDefinition, scope: Scope) {
  let query = dyn(db).selectFrom(def.table).selectAll().where('school_id', '=', scope.schoolId);
  if (def.parent && scope.parentId !== undefined) query = query.where(def.parent.column, '=', scope.parentId);
  if (scope.publicOnly && def.publicWhen)
    query = query.where(def.publicWhen.column, '=', def.publicWhen.equals);
  return query;
}

/** One page in id order (ids grow with time); fetches one extra row to know if more follow. */
export async function listRows(
  db: Kysely<Database>,
  def: FamilyDefinition,
  scope: Scope,
  page: { limit: number; after?: string },
): Promise<{ rows: Row[]; more: boolean }> {
  let query = scoped(db, def, scope);
  if (page.after !== undefined) query = query.where('id', '>', page.after);
  const rows = await query
    .orderBy('id')
    .limit(page.limit + 1)
    .execute();
  return { rows: rows.slice(0, page.limit), more: rows.length > page.limit };
}

export function getRow(
  db: Kysely<Database>,
  def: FamilyDefinition,
  scope: Scope,
  id: string,
): Promise<Row | undefined> {
  return scoped(db, def, scope).where('id', '=', id).executeTakeFirst();
}

export async function insertRow(db: Kysely<Database>, def: FamilyDefinition, row: Row): Promise<void> {
  await dyn(db).insertInto(def.table).values(row).execute();
}

export async function updateRow(
  db: Kysely<Database>,
  def: FamilyDefinition,
  scope: Scope,
  id: string,
  changes: Row,
): Promise<boolean> {
  let query = dyn(db)
    .updateTable(def.table)
    .set(changes)
    .where('school_id', '=', scope.schoolId)
    .where('id', '=', id);
  if (def.parent && scope.parentId !== undefined) query = query.where(def.parent.column, '=', scope.parentId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteRow(
  db: Kysely<Database>,
  def: FamilyDefinition,
  scope: Scope,
  id: string,
): Promise<boolean> {
  let query = dyn(db).deleteFrom(def.table).where('school_id', '=', scope.schoolId).where('id', '=', id);
  if (def.parent && scope.parentId !== undefined) query = query.where(def.parent.column, '=', scope.parentId);
  const result = await query.executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Whether a row of `table` with this id exists in the school (and under the given parent). */
export async function rowExists(
  db: Kysely<Database>,
  table: ApiTableName,
  schoolId: string,
  id: string,
  parent?: { column: string; id: string },
): Promise<boolean> {
  let query = dyn(db).selectFrom(table).select('id').where('school_id', '=', schoolId).where('id', '=', id);
  if (parent) query = query.where(parent.column, '=', parent.id);
  return (await query.executeTakeFirst()) !== undefined;
}
