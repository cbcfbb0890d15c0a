// The relay's walls, checked by dependency-cruiser in `npm test` (scripts/test-all.mjs runs
// `depcruise --config .dependency-cruiser.cjs server widget contract bench scripts`).
// A broken rule fails the run and names the offending import.

/** Files that hold a module's tables: the only ones that reach the SQLite connection. */
const REPOSITORIES = [
  '^server/store/',
  '^server/listings/(cache|event-store|webhook-inbox)[.]ts$',
  '^server/photos/mirror[.]ts$',
  '^server/enquiries/outbox[.]ts$',
  '^server/crm/(limiter|access)[.]ts$',
  '^server/pages/published[.]ts$',
];

/** Where the relay is put together from its parts: these may reach every module, the CRM adapter included. */
const COMPOSITION_ROOTS = ['^server/(main|relay|cli|agency)[.]ts$', '^server/ops/', '^server/agencies/'];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No import cycles, type-only imports included: a cycle means two modules are one, or a type lives in the wrong one.',
      severity: 'error',
      from: { path: '^(server|contract|bench|scripts)/' },
      to: { circular: true },
    },
    {
      name: 'no-cycles-in-widget',
      comment:
        "The widget's translation registry (shared/localize.ts) imports each element's string type (import type) and each element's strings register with it: a loop of types, gone when compiled, and the registry pattern the house style asks for. Every other loop is refused.",
      severity: 'error',
      from: { path: '^widget/' },
      to: { circular: true, viaOnly: { pathNot: '^widget/shared/localize[.]ts$' } },
    },
    {
      name: 'widget-not-server',
      comment: 'widget/ is browser code: it shares only contract/ with the relay.',
      severity: 'error',
      from: { path: '^widget/' },
      to: { path: '^server/' },
    },
    {
      name: 'server-not-widget',
      comment:
        "server/ is Node code: it shares only contract/ with the widget. One exception, and only for it: server/pages renders the widget's elements into the listing pages (#13), so it may reach widget/ (the renderer's picture helpers; the elements themselves it loads from the widget build's server copy, vite.ssr.config.ts). No other server folder may.",
      severity: 'error',
      from: { path: '^server/', pathNot: '^server/pages/' },
      to: { path: '^widget/' },
    },
    {
      name: 'contract-stands-alone',
      comment: 'contract/ is the public JSON both sides import: it imports neither.',
      severity: 'error',
      from: { path: '^contract/' },
      to: { path: '^(server|widget)/' },
    },
    {
      name: 'simulator-from-entry-tests-bench',
      comment: 'The CRM simulator is started by the relay in demo mode (relay.ts), by tests and by benchmarks; nothing else in the relay knows it.',
      severity: 'error',
      from: { path: '^server/', pathNot: ['^server/sim/', '^server/relay[.]ts$'] },
      to: { path: '^server/sim/' },
    },
    {
      name: 'sim-stands-alone',
      comment: 'The simulator plays the CRM: it shares no code with the relay it is tested against.',
      severity: 'error',
      from: { path: '^server/sim/' },
      to: { path: '^server/', pathNot: '^server/sim/' },
    },
    {
      name: 'sqlite-only-in-store',
      comment: 'Only server/store/ opens SQLite or PostgreSQL (pg); the modules reach their tables through store/tables.ts.',
      severity: 'error',
      from: { path: '^server/', pathNot: '^server/store/' },
      to: { path: ['better-sqlite3', 'node_modules/pg/'] },
    },
    {
      name: 'tables-through-repositories',
      comment:
        "A module's tables are read and written by its own repository files (listed in REPOSITORIES); other modules call their typed functions, never their SQL.",
      severity: 'error',
      from: { path: '^server/', pathNot: REPOSITORIES },
      to: { path: '^server/store/tables[.]ts$' },
    },
    {
      name: 'crm-behind-ports',
      comment:
        "Only server/crm/ knows the CRM (its paths, paging, ids and field names). Features reach it through the listing source and lead sink ports; the composition roots wire the adapter in.",
      severity: 'error',
      from: { path: '^server/', pathNot: ['^server/crm/', '^server/sim/', ...COMPOSITION_ROOTS] },
      to: { path: '^server/crm/' },
    },
  ],
  options: {
    // TypeScript 7 has no JavaScript API for dependency-cruiser to parse with: swc reads the .ts files.
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
    moduleSystems: ['es6', 'cjs'],
  },
};
