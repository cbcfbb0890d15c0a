// The relay's walls, checked by dependency-cruiser in `npm test` (scripts/test-all.mjs runs
// `depcruise --config .dependency-cruiser.cjs server crm-sim widget contract bench scripts`).
//
// server/ is in layers, each a folder, each importing only those below it:
//   runtime/  config, log, clock, workers, the CLI kit: imports nothing else in server/
//   http/     the HTTP edge (app, CORS, errors, caches, widget assets): runtime/ only
//   crm/ enquiries/ saved-searches/ lead-queue/ listings/ photos/ pages/ places/ tiles/ store/   the features and their store
//     (lead-queue/: the durable lead queue both enquiries/ and saved-searches/ are made of)
//   cluster/  what exists only with DATABASE_URL (lease, replica, shared sync, gate, inbox)
//   compose/  the relay and its agencies put together from the parts
//   ops/      the operator's commands
//   main.ts, cli.ts   the entry points, the only loose files
// A broken rule fails the run and names the offending import.

/** Files that hold a module's tables: the only ones that reach the SQLite connection. */
const REPOSITORIES = [
  '^server/store/',
  '^server/listings/(cache|event-store)[.]ts$',
  '^server/cluster/(replica|sync-lease|webhook-inbox|shared-gate)[.]ts$',
  '^server/photos/mirror[.]ts$',
  '^server/enquiries/outbox[.]ts$',
  // The seller's report's one read of the outbox: leads by day and kind for a listing.
  '^server/enquiries/report-counts[.]ts$',
  '^server/saved-searches/store[.]ts$',
  // The lead queue's shared statements: each queue's module passes its own tables (enquiry_outbox, saved_searches, their repeats).
  '^server/lead-queue/(table|intent)[.]ts$',
  '^server/crm/(limiter|access)[.]ts$',
  '^server/pages/published[.]ts$',
  '^server/places/repository[.]ts$',
  '^server/reports/links[.]ts$',
  '^server/visits/repository[.]ts$',
];

/** Where the relay is put together from its parts: these may reach every module, the CRM adapter included. */
const COMPOSITION_ROOTS = ['^server/(main|cli)[.]ts$', '^server/compose/', '^server/ops/'];

/** The feature folders: between the HTTP edge below and the cluster layer above. */
const FEATURES = '^server/(crm|enquiries|saved-searches|lead-queue|listings|photos|pages|places|tiles|store|reports|visits)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No import cycles, type-only imports included: a cycle means two modules are one, or a type lives in the wrong one.',
      severity: 'error',
      from: { path: '^(server|crm-sim|contract|bench|scripts)/' },
      to: { circular: true },
    },
    {
      name: 'no-cycles-in-widget',
      comment:
        "No import loop in the widget either, type-only imports included. The translation registry (shared/translations.ts) knows no element: each element's strings register their own section with it, and only shared/localize.ts, which nothing imports but types, names every section. One kind of loop is allowed: through a dynamic import, which runs nothing when its module loads, only when called (a section's strings name how to fetch its words in each built-in language, widget/i18n/sections/, and those words type themselves by the section's interface).",
      severity: 'error',
      from: { path: '^widget/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['dynamic-import'] } },
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
      comment:
        'The CRM simulator (crm-sim/) is started by the relay in demo mode (compose/relay.ts), by tests and by benchmarks; nothing else in the relay knows it.',
      severity: 'error',
      from: { path: '^server/', pathNot: '^server/compose/relay[.]ts$' },
      to: { path: '^crm-sim/' },
    },
    {
      name: 'sim-stands-alone',
      comment: 'The simulator plays the CRM: it shares no code with the relay it is tested against, nor with the widget.',
      severity: 'error',
      from: { path: '^crm-sim/' },
      to: { path: '^(server|widget)/' },
    },
    {
      name: 'runtime-imports-nothing-above',
      comment: 'server/runtime/ is the kit every layer uses (config, log, clock, workers, CLI kit): it imports nothing else in server/.',
      severity: 'error',
      from: { path: '^server/runtime/' },
      to: { path: '^server/', pathNot: '^server/runtime/' },
    },
    {
      name: 'http-edge-on-runtime-only',
      comment: 'server/http/ is the HTTP edge (app, CORS, errors, caches): it imports only server/runtime/; features hand it what it serves.',
      severity: 'error',
      from: { path: '^server/http/' },
      to: { path: '^server/', pathNot: '^server/(runtime|http)/' },
    },
    {
      name: 'features-below-cluster',
      comment:
        'The features (crm, enquiries, listings, photos, pages, store) know nothing of several relays, of how the relay is put together or of the operator commands: they offer ports that cluster/ and compose/ fill.',
      severity: 'error',
      from: { path: FEATURES },
      to: { path: '^server/(cluster|compose|ops)/|^server/[^/]+[.]ts$' },
    },
    {
      name: 'cluster-below-compose',
      comment:
        'server/cluster/ (what exists only with DATABASE_URL) builds on the features and is wired in by compose/: it imports neither compose/, ops/ nor an entry point.',
      severity: 'error',
      from: { path: '^server/cluster/' },
      to: { path: '^server/(compose|ops)/|^server/[^/]+[.]ts$' },
    },
    {
      name: 'compose-below-ops',
      comment: "server/compose/ puts the relay together; the operator's commands (ops/) and the entry points sit above it and it imports neither.",
      severity: 'error',
      from: { path: '^server/compose/' },
      to: { path: '^server/ops/|^server/[^/]+[.]ts$' },
    },
    {
      name: 'ops-below-entry-points',
      comment: "server/ops/ (the operator's commands) is reached from the entry points (main.ts, cli.ts) and imports neither.",
      severity: 'error',
      from: { path: '^server/ops/' },
      to: { path: '^server/[^/]+[.]ts$' },
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
        'Only server/crm/ knows the CRM (its paths, paging, ids and field names). Features reach it through the listing source and lead sink ports; the composition roots wire the adapter in.',
      severity: 'error',
      from: { path: '^server/', pathNot: ['^server/crm/', ...COMPOSITION_ROOTS] },
      // One port is implemented outside: the key's shared limits (crm/key-gate.ts), held in PostgreSQL by cluster/shared-gate.ts.
      to: { path: '^server/crm/', pathNot: '^server/crm/key-gate[.]ts$' },
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
