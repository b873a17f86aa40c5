/**
 * The school's own data as the API, the demo seed and the CLI ask for it: schools with the
 * caller's role, the rows of every resource family (generic over the family's table), uploads,
 * and the analytics figures.
 */
import type { ApiTableName, UploadsTable } from '../api-schema.js';
import type { Role, School } from '../schema.js';

export type Row = Record<string, string | number | null>;

/** What storage needs of a resource family (src/school/define.ts FamilyDefinition has these). */
export interface FamilyTable {
  readonly table: ApiTableName;
  /** The column that points at the parent row (nested families). */
  readonly parent?: { readonly column: string };
  /** What anonymous readers may see; absent = nothing. */
  readonly publicWhen?: { readonly column: string; readonly equals: string | number };
}

/** Where an item lives: its school and, for nested families, its parent row. */
export interface RowScope {
  readonly schoolId: string;
  readonly parentId?: string;
  /** Only rows anonymous readers may see. */
  readonly publicOnly: boolean;
}

export type Upload = UploadsTable;

export interface SchoolData {
  /** The school by slug. */
  find(slug: string): Promise<School | undefined>;
  /** The school by slug with the account's role in it (null: not a member); one read. */
  findWithRole(slug: string, accountId: string): Promise<{ school: School; role: Role | null } | undefined>;
  list(): Promise<School[]>;
  insert(school: School): Promise<void>;
  /** Sets columns of the school (and its updated_at). */
  update(schoolId: string, changes: Partial<Omit<School, 'id'>>): Promise<void>;
  /** The schools the account is a member of, with its role, by slug. */
  membershipsOf(accountId: string): Promise<{ school_id: string; slug: string; name: string; role: Role }[]>;

  /** One page of a family in id order; `more` when rows follow. */
  listRows(
    family: FamilyTable,
    scope: RowScope,
    page: { limit: number; after?: string },
  ): Promise<{ rows: Row[]; more: boolean }>;
  getRow(family: FamilyTable, scope: RowScope, id: string): Promise<Row | undefined>;
  insertRow(family: FamilyTable, row: Row): Promise<void>;
  /** False when no such row is in the scope. */
  updateRow(family: FamilyTable, scope: RowScope, id: string, changes: Row): Promise<boolean>;
  deleteRow(family: FamilyTable, scope: RowScope, id: string): Promise<boolean>;
  /** Whether a row of `table` with this id exists in the school (and under the given parent). */
  rowExists(
    table: ApiTableName,
    schoolId: string,
    id: string,
    parent?: { column: string; id: string },
  ): Promise<boolean>;

  insertUpload(upload: Upload): Promise<void>;
  findUpload(id: string): Promise<Upload | undefined>;

  /** Students by status, and orders by status and currency with their sums (GET /analytics). */
  studentCounts(schoolId: string): Promise<{ status: string; n: number }[]>;
  orderFigures(
    schoolId: string,
  ): Promise<{ status: string; currency: string; n: number; cents: number | null }[]>;
}
