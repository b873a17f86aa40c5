/**
 * The layer rules of src/ (docs/architecture.md "Layers"), checked by `npm run lint:layers` in CI
 * (.ci/run). A forbidden import fails the build with the rule's name and its comment. Type-only
 * imports count: a type from a higher layer couples the code all the same.
 *
 * From the bottom up: crypto and the leaf modules (paths.ts, errors.ts, limits.ts, config.ts);
 * storage; the domain and shared services (school, accounts, signing-keys, audit, rate-limit,
 * sessions, ops); the HTTP layers (http — the request plumbing, under the rest —, resource-server,
 * oauth, pages, api, docs, app.ts); the entry
 * points (serve.ts, main.ts, cli, demo).
 */

// The layers that answer HTTP requests. The CLI and the demo seed run without a server.
const HTTP_LAYERS = [
  '^src/(http|api|pages|resource-server|docs)/',
  '^src/(app|serve)\\.ts$',
  // The authorization server's endpoints (its policy modules are not HTTP and may be shared).
  '^src/oauth/(authorize/endpoint|token/endpoint|userinfo|revoke|introspect|register|discovery)\\.ts$',
  '^src/ops/(metrics|health)-routes\\.ts$',
];

// Everything above storage.
const ABOVE_STORAGE =
  '^src/(accounts|api|audit|cli|demo|docs|http|oauth|ops|pages|rate-limit|resource-server|school|sessions|signing-keys)/|^src/(app|serve|main|bootstrap|context)\\.ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A module cycle means neither side can be read, tested or changed alone: move the shared piece down a layer, or hand it in (as oauth/authorize/view.ts does).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'crypto-is-a-leaf',
      severity: 'error',
      comment:
        'crypto/ holds pure operations (tokens, hashes, passwords, sealing, JWS, key pairs) that every layer uses; it imports only node builtins and libraries. Pass values in (e.g. the limits of passwordCheckQueue); keep stored keys in signing-keys/.',
      from: { path: '^src/crypto/' },
      to: { path: '^src/', pathNot: '^src/crypto/' },
    },
    {
      name: 'paths-is-a-leaf',
      severity: 'error',
      comment:
        'src/paths.ts names every endpoint for the server, pages, resource server and documents alike; it must import nothing, or naming a URL drags a route module in.',
      from: { path: '^src/paths\\.ts$' },
      to: { path: '^src/' },
    },
    {
      name: 'storage-below-everything',
      severity: 'error',
      comment:
        'storage/ is the only place that knows SQLite from PostgreSQL and sits under every feature: it may use crypto and config, never a layer above it (oauth, pages, api, resource-server, sessions, cli, ...).',
      from: { path: '^src/storage/' },
      to: { path: ABOVE_STORAGE },
    },
    {
      name: 'backend-choice-in-storage',
      severity: 'error',
      comment:
        'Above src/storage/ nothing knows SQLite from PostgreSQL: ask the store contract (src/storage/store.ts, ctx.store) for a whole operation, and let storage/sqlite/ and storage/postgres/ each implement it. Never dialectOf, never a backend folder.',
      from: { path: ABOVE_STORAGE },
      to: { path: '^src/storage/(sqlite|postgres)/|^src/storage/dialect\\.ts$' },
    },
    {
      name: 'oauth-through-the-store',
      severity: 'error',
      comment:
        'The authorization server and the resource server reach the database only through the store contract (ctx.store; src/storage/store.ts and contract/): never Kysely, never a repository. What storage/ offers them besides: the row types (schema.ts), what a client row means (client-rows.ts), and the transaction and outage errors (transaction.ts, unavailable.ts).',
      from: { path: '^src/(oauth|resource-server)/' },
      to: {
        path: ['^src/storage/', 'node_modules/kysely/'],
        pathNot: '^src/storage/(store|schema|client-rows|transaction|unavailable)\\.ts$|^src/storage/contract/',
      },
    },
    {
      name: 'everything-through-the-store',
      comment:
        'Above src/storage/ the database is reached only through the store contract (ctx.store; src/storage/store.ts and contract/): never Kysely, never a repository. Add the operation to a section of the store and implement it in storage.',
      severity: 'error',
      from: { path: ABOVE_STORAGE },
      to: { path: ['node_modules/kysely/', '^src/storage/.*\\.repository\\.ts$'] },
    },
    {
      name: 'http-plumbing-below-routes',
      severity: 'error',
      comment:
        'src/http/ is the request plumbing every route goes through (ids, headers, request-line checks, logging, the error handler, validation, form bodies, CORS); it must not import a route layer, or plumbing would depend on what it carries. Name a URL through src/paths.ts.',
      from: { path: '^src/http/' },
      to: { path: '^src/(oauth|pages|api|docs|resource-server|cli|demo)/|^src/(app|serve|main)\\.ts$|^src/ops/(metrics|health)-routes\\.ts$' },
    },
    {
      name: 'school-domain-not-http',
      severity: 'error',
      comment:
        'src/school/ (family definitions, rows, generic queries, URL field formats) is shared by the API and the demo seed: it may use storage and crypto only.',
      from: { path: '^src/school/' },
      to: { path: '^src/', pathNot: '^src/(school|storage|crypto)/|^src/(config|limits|errors)\\.ts$' },
    },
    {
      name: 'services-not-http',
      severity: 'error',
      comment:
        'accounts, signing-keys, audit, rate-limit and sessions are services the HTTP layers and the CLI share; they must not import a route layer (or the CLI/demo), or the CLI would pull in the server.',
      from: { path: '^src/(accounts|signing-keys|audit|rate-limit|sessions)/' },
      to: { path: [...HTTP_LAYERS, '^src/oauth/', '^src/(cli|demo)/'] },
    },
    {
      name: 'cli-and-demo-not-http',
      severity: 'error',
      comment:
        'The CLI and the demo seed run without a server: they must not reach (even indirectly) api, pages, resource-server, docs, app.ts or an oauth endpoint. Move what they need to a non-HTTP module (school/, accounts/, an oauth policy module).',
      from: { path: '^src/(cli|demo)/' },
      to: { path: HTTP_LAYERS, reachable: true },
    },
    {
      name: 'oauth-not-pages-or-api',
      severity: 'error',
      comment:
        'The authorization server sits below the pages and the school API: pages may use oauth policy, not the reverse. The authorize endpoint renders through the AuthorizeView that app.ts hands in (oauth/authorize/view.ts).',
      from: { path: '^src/oauth/' },
      to: { path: '^src/(pages|api|docs|cli|demo)/|^src/(app|serve)\\.ts$' },
    },
    {
      name: 'resource-server-below-oauth-and-api',
      severity: 'error',
      comment:
        'resource-server/ turns a bearer token into a principal for the API, userinfo and metrics; it is below them and must not import oauth, pages or api (paths come from src/paths.ts).',
      from: { path: '^src/resource-server/' },
      to: { path: '^src/(oauth|pages|api|docs|cli|demo)/|^src/(app|serve)\\.ts$' },
    },
    {
      name: 'api-not-oauth-or-pages',
      severity: 'error',
      comment:
        'The school API is a protected resource: it uses resource-server/ for bearer tokens and scopes, never the authorization server or the pages.',
      from: { path: '^src/api/' },
      to: { path: '^src/(oauth|pages|docs|cli|demo)/|^src/(app|serve)\\.ts$' },
    },
    {
      name: 'pages-not-api',
      severity: 'error',
      comment: 'The pages are the person-facing side of the authorization server; they do not use the school API.',
      from: { path: '^src/pages/' },
      to: { path: '^src/(api|docs|cli|demo)/|^src/(app|serve)\\.ts$' },
    },
    {
      name: 'ops-not-features',
      severity: 'error',
      comment:
        'ops/ (jobs, metrics, locks, shutdown) runs beside every layer; it must not import the authorization server, pages, API or CLI (metrics use resource-server/ only for their bearer).',
      from: { path: '^src/ops/' },
      to: { path: '^src/(oauth|pages|api|docs|cli|demo)/|^src/(app|serve)\\.ts$' },
    },
    {
      name: 'src-not-tests',
      severity: 'error',
      comment: 'Shipped code never imports test/ or bench/ (they are not in the build).',
      from: { path: '^src/' },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'src-not-dev-dependencies',
      severity: 'error',
      comment:
        'Code under src/ runs in production, where devDependencies are not installed: use a dependency, or move the code to test/.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'], pathNot: '^node_modules/@types/' },
    },
    {
      name: 'src-not-undeclared',
      severity: 'error',
      comment: 'A package src/ imports must be declared in package.json dependencies.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'sqlite-driver-through-binding',
      severity: 'error',
      comment:
        'Open SQLite only through src/storage/sqlite/binding.ts: it picks better-sqlite3 13 or 12 for the running Node. A second copy of SQLite in one process breaks the file locks of the first (a backup under load then fails with SQLITE_IOERR).',
      from: { path: '^(src|test)/', pathNot: '^src/storage/sqlite/binding\\.ts$' },
      to: { path: '^node_modules/better-sqlite3(-13)?/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing is a typo or a moved module.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // node_modules may be a symlink (a git worktree): report paths as imported, not as resolved.
    preserveSymlinks: true,
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
