import type { Kysely } from 'kysely';

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen history
type Db = Kysely<any>;

type ColumnType = 'text' | 'integer' | 'bigint';
/** [name, type, not null] */
type Column = readonly [string, ColumnType, boolean];
/** A reference column: [name, table, on delete] */
type Reference = readonly [string, string, 'cascade' | 'set null'];

interface TableSpec {
  readonly name: string;
  readonly columns: readonly Column[];
  /** The owning parent row (cascade) and other rows it points at (set null). */
  readonly references?: readonly Reference[];
}

const publishable: Column = ['status', 'text', true];

// The school API's families (src/api/families/*). Every row carries its school, so isolation is
// one `where school_id = ?` on every query.
const TABLES: readonly TableSpec[] = [
  {
    name: 'courses',
    columns: [
      ['title', 'text', true],
      ['description', 'text', true],
      ['price_cents', 'integer', true],
      ['currency', 'text', true],
      publishable,
    ],
  },
  {
    name: 'course_sections',
    columns: [
      ['title', 'text', true],
      ['position', 'integer', true],
    ],
    references: [['course_id', 'courses', 'cascade']],
  },
  {
    name: 'lessons',
    columns: [
      ['title', 'text', true],
      ['kind', 'text', true],
      ['content', 'text', true],
      ['duration_minutes', 'integer', true],
      ['position', 'integer', true],
    ],
    references: [['section_id', 'course_sections', 'cascade']],
  },
  {
    name: 'students',
    columns: [
      ['name', 'text', true],
      ['email', 'text', true],
      ['status', 'text', true],
      ['note', 'text', true],
    ],
  },
  {
    name: 'members',
    columns: [
      ['name', 'text', true],
      ['email', 'text', true],
      ['role', 'text', true],
    ],
  },
  {
    name: 'lecturers',
    columns: [
      ['name', 'text', true],
      ['headline', 'text', true],
      ['bio', 'text', true],
      ['email', 'text', true],
      ['public_profile', 'integer', true],
    ],
  },
  {
    name: 'events',
    columns: [
      ['title', 'text', true],
      ['description', 'text', true],
      ['starts_at', 'text', true],
      ['ends_at', 'text', false],
      ['location', 'text', true],
      publishable,
    ],
  },
  {
    name: 'membership_plans',
    columns: [
      ['name', 'text', true],
      ['description', 'text', true],
      ['price_cents', 'integer', true],
      ['currency', 'text', true],
      ['billing_interval', 'text', true],
      ['active', 'integer', true],
    ],
  },
  {
    name: 'coupons',
    columns: [
      ['code', 'text', true],
      ['percent_off', 'integer', true],
      ['max_redemptions', 'integer', false],
      ['expires_at', 'text', false],
      ['active', 'integer', true],
    ],
  },
  {
    name: 'posts',
    columns: [['title', 'text', true], ['body', 'text', true], publishable],
  },
  {
    name: 'comments',
    columns: [
      ['author_name', 'text', true],
      ['body', 'text', true],
    ],
    references: [['post_id', 'posts', 'cascade']],
  },
  {
    name: 'subscriptions',
    columns: [
      ['status', 'text', true],
      ['started_at', 'text', true],
      ['canceled_at', 'text', false],
    ],
    references: [
      ['student_id', 'students', 'set null'],
      ['plan_id', 'membership_plans', 'set null'],
    ],
  },
  {
    name: 'digital_products',
    columns: [
      ['name', 'text', true],
      ['description', 'text', true],
      ['price_cents', 'integer', true],
      ['currency', 'text', true],
      ['file_url', 'text', true],
      publishable,
    ],
  },
  {
    name: 'orders',
    columns: [
      ['item', 'text', true],
      ['amount_cents', 'integer', true],
      ['currency', 'text', true],
      ['status', 'text', true],
    ],
    references: [['student_id', 'students', 'set null']],
  },
  {
    name: 'forms',
    columns: [['title', 'text', true], ['fields', 'text', true], publishable],
  },
  {
    name: 'form_submissions',
    columns: [['data', 'text', true]],
    references: [['form_id', 'forms', 'cascade']],
  },
  {
    name: 'pages',
    columns: [['title', 'text', true], ['slug', 'text', true], ['body', 'text', true], publishable],
  },
  {
    name: 'uploads',
    columns: [
      ['account_id', 'text', true],
      ['filename', 'text', true],
      ['content_type', 'text', true],
      ['size', 'bigint', true],
    ],
  },
];

async function createFamilyTable(db: Db, spec: TableSpec): Promise<void> {
  let table = db.schema
    .createTable(spec.name)
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('school_id', 'text', (c) => c.notNull().references('schools.id').onDelete('cascade'));
  for (const [column, table_, onDelete] of spec.references ?? []) {
    table = table.addColumn(column, 'text', (c) => {
      const ref = c.references(`${table_}.id`).onDelete(onDelete);
      return onDelete === 'cascade' ? ref.notNull() : ref;
    });
  }
  for (const [column, type, notNull] of spec.columns) {
    table = table.addColumn(column, type, (c) => (notNull ? c.notNull() : c));
  }
  table = table
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull());
  await table.execute();
  // Lists page by id inside one school (or one parent row).
  await db.schema.createIndex(`${spec.name}_school`).on(spec.name).columns(['school_id', 'id']).execute();
  for (const [column] of spec.references ?? []) {
    await db.schema.createIndex(`${spec.name}_${column}`).on(spec.name).columns([column, 'id']).execute();
  }
}

export async function up(db: Db): Promise<void> {
  for (const spec of TABLES) await createFamilyTable(db, spec);
}

export async function down(db: Db): Promise<void> {
  for (const spec of [...TABLES].reverse()) await db.schema.dropTable(spec.name).execute();
}
