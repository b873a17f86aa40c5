/**
 * Table types of the school API (migration 0030). Every row belongs to one school; texts that
 * hold JSON say so; flags are 0/1 integers and times of the API's own bookkeeping are epoch
 * seconds, while dates a person types (event start, coupon expiry) are ISO 8601 text.
 */

interface SchoolRow {
  id: string;
  school_id: string;
  created_at: number;
  updated_at: number;
}

export interface CoursesTable extends SchoolRow {
  title: string;
  description: string;
  price_cents: number;
  currency: string;
  /** `draft` or `published`. */
  status: string;
}

export interface CourseSectionsTable extends SchoolRow {
  course_id: string;
  title: string;
  position: number;
}

export interface LessonsTable extends SchoolRow {
  section_id: string;
  title: string;
  kind: string;
  content: string;
  duration_minutes: number;
  position: number;
}

export interface StudentsTable extends SchoolRow {
  name: string;
  email: string;
  status: string;
  note: string;
}

export interface MembersTable extends SchoolRow {
  name: string;
  email: string;
  role: string;
}

export interface LecturersTable extends SchoolRow {
  name: string;
  headline: string;
  bio: string;
  email: string;
  public_profile: number;
}

export interface EventsTable extends SchoolRow {
  title: string;
  description: string;
  starts_at: string;
  ends_at: string | null;
  location: string;
  status: string;
}

export interface MembershipPlansTable extends SchoolRow {
  name: string;
  description: string;
  price_cents: number;
  currency: string;
  billing_interval: string;
  active: number;
}

export interface CouponsTable extends SchoolRow {
  code: string;
  percent_off: number;
  max_redemptions: number | null;
  expires_at: string | null;
  active: number;
}

export interface PostsTable extends SchoolRow {
  title: string;
  body: string;
  status: string;
}

export interface CommentsTable extends SchoolRow {
  post_id: string;
  author_name: string;
  body: string;
}

export interface SubscriptionsTable extends SchoolRow {
  student_id: string | null;
  plan_id: string | null;
  status: string;
  started_at: string;
  canceled_at: string | null;
}

export interface DigitalProductsTable extends SchoolRow {
  name: string;
  description: string;
  price_cents: number;
  currency: string;
  file_url: string;
  status: string;
}

export interface OrdersTable extends SchoolRow {
  student_id: string | null;
  item: string;
  amount_cents: number;
  currency: string;
  status: string;
}

export interface FormsTable extends SchoolRow {
  title: string;
  /** JSON array of field descriptions. */
  fields: string;
  status: string;
}

export interface FormSubmissionsTable extends SchoolRow {
  form_id: string;
  /** JSON object: the submitted answers. */
  data: string;
}

export interface PagesTable extends SchoolRow {
  title: string;
  slug: string;
  body: string;
  status: string;
}

/** A stored upload; the bytes live in DATA_DIR/uploads/<id>. */
export interface UploadsTable extends SchoolRow {
  account_id: string;
  filename: string;
  content_type: string;
  size: number;
}

export interface ApiDatabase {
  courses: CoursesTable;
  course_sections: CourseSectionsTable;
  lessons: LessonsTable;
  students: StudentsTable;
  members: MembersTable;
  lecturers: LecturersTable;
  events: EventsTable;
  membership_plans: MembershipPlansTable;
  coupons: CouponsTable;
  posts: PostsTable;
  comments: CommentsTable;
  subscriptions: SubscriptionsTable;
  digital_products: DigitalProductsTable;
  orders: OrdersTable;
  forms: FormsTable;
  form_submissions: FormSubmissionsTable;
  pages: PagesTable;
  uploads: UploadsTable;
}

export type ApiTableName = keyof ApiDatabase;
