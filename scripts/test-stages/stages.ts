/**
 * The stages of `npm test`, in the order a failure is cheapest to find: each an npm script that can be run alone.
 * Apart from main.ts so that a test can read the list without running it.
 */
export const stageScripts = [
  'lint',
  'check:generated',
  'check:breaking',
  'check:architecture',
  'typecheck',
  'test:unit',
  'test:contract',
  // The same suite through the mock as a proxy (--upstream) of another mock, webhooks through its relay.
  'test:contract:proxy',
  // The same suite against the mock in process, behind Mock Service Worker: no process, no port.
  'test:contract:in-process',
  // The slow groups of tests/ (vitest.config.ts), each its own stage so that the summary shows its time.
  'test:packages',
  'test:browser',
  'test:state',
  'test:contract-changes',
  'test:examples',
  'test:dredd',
  'test:workflows',
  'test:fuzz',
];

/**
 * The stages that take several times as long as any other (test:contract-changes runs the CI templates' job in a
 * clean copy, `npm ci` and all): several at a time, they start right after the first stage, so that they run beside
 * the others rather than alone at the end, and the others run at a lower priority than they (run-stages.ts).
 */
export const longStages: ReadonlySet<string> = new Set(['test:contract-changes']);

/**
 * The stages a change to the contract needs, and that need nothing but Node: the lint, generated/ fresh, the gate,
 * the types (a handler of the mock typed from the contract), the contract suite, Dredd and the Arazzo workflows
 * against a mock each starts. CI's contract job runs them (`npm run test:contract-job`) on every change; the kit's
 * own tests (Redis, Chromium, its packages) run in a job of their own when more than the contract changed.
 */
export const stageGroups = {
  'contract-job': ['lint', 'check:generated', 'check:breaking', 'typecheck', 'test:contract', 'test:dredd', 'test:workflows'],
} as const satisfies Record<string, readonly string[]>;
