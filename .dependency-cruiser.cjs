/**
 * What may import what in the mock (`npm run check:architecture`, part of `npm test`): the layers of
 * docs/architecture.md, from the bottom up. A rule here is the picture there; change both together.
 *
 *   foundations   store/ (persistence only), http/ (transport only), scheduling/, ids.ts
 *   core          auth/ (API keys), pagination/, leases/ (work taken under leases), then pipeline/ (the steps every request walks)
 *   features      customers/ companies/ documents/ reference/ formation/ webhooks/ idempotency/ journal/
 *                 faults/ forced-answers/ rate-limit/ cors/ served-documents/ seed/ proxy/ changes/ receiver-grader/
 *
 * And the console's page (console/, a browser app): it reaches the mock only through its two APIs, so it imports
 * no module of the mock, nothing of Node, and of the contract model only what reads a document already loaded.
 * Within it, from the bottom up:
 *   api.ts session.ts contract.ts   the ways to the mock
 *   ui/ live/                       the pieces the views share, and what follows the mock as it changes
 *   views/NAME/                     a folder per view, none importing another
 *   app/ main.tsx                   the frame that holds the views, and the entry
 *   wiring        config/ and admin/, then app/ (the one place that assembles everything), launch/, main.ts and
 *                 package/main.ts, package/msw.ts, package/msw-browser.ts (the entries: npm start's and the package's)
 */
const features = '(customers|companies|documents|reference|formation|webhooks|idempotency|journal|faults|forced-answers|rate-limit|cors|served-documents|seed|proxy|changes|receiver-grader)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes two modules one: neither can be read, tested or replaced alone.',
      from: { path: '^mock/' },
      to: { circular: true },
    },
    {
      name: 'store-is-persistence-only',
      severity: 'error',
      comment: 'The store stores and retrieves; the rules live in the features above it, written once.',
      from: { path: '^mock/store/' },
      to: { path: '^mock/(?!store/)' },
    },
    {
      name: 'http-is-transport-only',
      severity: 'error',
      comment: 'http/ reads requests and writes answers; it knows no pipeline, feature or store.',
      from: { path: '^mock/http/' },
      to: { path: '^mock/(?!http/)' },
    },
    {
      name: 'foundations-stand-alone',
      severity: 'error',
      from: { path: '^mock/(scheduling/|ids\\.ts)' },
      to: { path: '^mock/(?!scheduling/)' },
    },
    {
      name: 'core-below-features',
      severity: 'error',
      comment: 'auth/, pagination/ and leases/ serve the pipeline and the features, never the other way round.',
      from: { path: '^mock/(auth|pagination|leases)/' },
      to: { path: '^mock/(?!(auth|pagination|leases|http|store)/|ids\\.ts)' },
    },
    {
      name: 'pipeline-below-features',
      severity: 'error',
      comment: 'The pipeline runs handlers it is given; it imports no feature.',
      from: { path: '^mock/pipeline/' },
      to: { path: '^mock/(?!(pipeline|auth|pagination|leases|http|store)/)' },
    },
    {
      name: 'features-below-wiring',
      severity: 'error',
      comment: 'A feature is given what it needs; it never reaches up into the configuration, the admin API or the assembly.',
      from: { path: `^mock/${features}/` },
      to: { path: '^mock/(config|admin|app|launch|package)/|^mock/main\\.ts' },
    },
    {
      name: 'admin-and-config-below-app',
      severity: 'error',
      from: { path: '^mock/(admin|config)/' },
      to: { path: '^mock/(app|launch|package)/|^mock/main\\.ts' },
    },
    {
      name: 'app-imported-by-main-only',
      severity: 'error',
      comment: "app/ assembles the mock; only its entry points start it (npm start's, and the package's: its bin and its Mock Service Worker entries).",
      from: { path: '^mock/', pathNot: '^mock/(app/|main\\.ts|package/(main|msw|msw-browser)\\.ts)' },
      to: { path: '^mock/app/' },
    },
    {
      name: 'browser-stand-ins-stand-alone',
      severity: 'error',
      comment: "package/browser/ holds what the browser build puts in place of Node's modules and the mock's Node-only ones: it knows nothing of the mock.",
      from: { path: '^mock/package/browser/' },
      to: { path: '^mock/(?!package/browser/)' },
    },
    {
      name: 'console-page-uses-the-apis-only',
      severity: 'error',
      comment: 'The console is a page: what it knows of the mock comes through the admin and partner APIs, typed from their contracts.',
      from: { path: '^console/' },
      to: { path: '^(mock|contract-tests|client|tests|scripts)/|^contract-model/(document|generated-files)\\.ts$' },
    },
    {
      name: 'console-views-stand-alone',
      severity: 'error',
      comment: 'A view of the console is a folder of its own; what views share lives in ui/ (pieces) or live/ (following the mock).',
      from: { path: '^console/views/([^/]+)/' },
      to: { path: '^console/views/', pathNot: '^console/views/$1/' },
    },
    {
      name: 'console-frame-on-top',
      severity: 'error',
      comment: 'app/ is the frame that holds the views; only the entry renders it.',
      from: { path: '^console/', pathNot: '^console/(app/|main\\.tsx$)' },
      to: { path: '^console/app/' },
    },
    {
      name: 'console-shared-below-views',
      severity: 'error',
      comment: 'ui/ and live/ serve the views, and know none; ui/ shows, live/ follows: neither needs the other.',
      from: { path: '^console/(ui|live)/' },
      to: { path: '^console/(views|app)/' },
    },
    {
      name: 'console-ui-shows-only',
      severity: 'error',
      from: { path: '^console/ui/' },
      to: { path: '^console/live/' },
    },
    {
      name: 'console-live-follows-only',
      severity: 'error',
      from: { path: '^console/live/' },
      to: { path: '^console/ui/' },
    },
    {
      name: 'console-ways-to-the-mock-below-all',
      severity: 'error',
      comment: 'api.ts, session.ts and contract.ts are how the console reaches the mock: everything else builds on them.',
      from: { path: '^console/[^/]+\\.ts$' },
      to: { path: '^console/(views|app|ui|live)/' },
    },
    {
      name: 'console-page-runs-in-a-browser',
      severity: 'error',
      comment: 'Nothing of Node reaches a browser bundle.',
      from: { path: '^console/' },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|generated)/' },
  },
};
