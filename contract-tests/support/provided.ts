/** What globalSetup hands to the test workers (through `provide`/`inject`): plain data only. */
export interface TargetInfo {
  /** `in-process`: the mock in each test file's worker, behind Mock Service Worker (in-process-target.ts). */
  kind: 'self-started-mock' | 'external' | 'in-process';
  /** For the report: what the suite ran against. */
  description: string;
  baseUrl: string;
  apiKey: string;
  /** Another partner's key, for the isolation checks; `null` when the target was given none. */
  apiKey2: string | null;
  /** Whether the mock's `/_mock/*` routes (faults) may be used: only on the mock the suite started itself. */
  mockAdmin: boolean;
  /** The local receiver the target delivers webhooks to, and the secret they are signed with. */
  webhook: { secret: string; receiverUrl: string } | null;
  /** Unique per run: keeps emails and keys of one run apart from earlier runs on a long-lived sandbox. */
  runId: string;
  /** JSON lines written by the workers: every response seen, and every check skipped with its reason. */
  recordFile: string;
  /** Where the coverage test leaves the rendered table, for globalSetup to print after the summary. */
  tableFile: string;
  notes: string[];
  /** The suite's own pace against this target; `null` when unthrottled. */
  maxRequestsPerSecond: number | null;
}

declare module 'vitest' {
  export interface ProvidedContext {
    contractTarget: TargetInfo;
  }
}
