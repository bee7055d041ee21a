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
  // The slow groups of tests/ (vitest.config.ts), each its own stage so that the summary shows its time.
  'test:packages',
  'test:browser',
  'test:state',
  'test:contract-changes',
  'test:dredd',
  'test:workflows',
  'test:fuzz',
];
