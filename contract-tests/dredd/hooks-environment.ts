/**
 * What the Dredd runner tells its hooks. Dredd loads the hooks into its own process, so the environment is the
 * only way in; both sides read and write it here, so that they name the variables alike.
 */
import type { RunTarget } from '../support/runner-target.ts';
import { envValue, readTargetVariables } from '../support/target-variables.ts';

export interface HooksSettings {
  target: RunTarget;
  /** Marks this run's emails and idempotency keys. */
  runId: string;
  /** A file the hooks create when Dredd has loaded them, for the runner to tell a hook file Dredd skipped. */
  loadedMarker: string | undefined;
}

export function hooksEnvironment(settings: HooksSettings): NodeJS.ProcessEnv {
  return {
    CONTRACT_BASE_URL: settings.target.baseUrl,
    CONTRACT_API_KEY: settings.target.apiKey,
    CONTRACT_MOCK_ADMIN: settings.target.mockAdmin ? '1' : '',
    CONTRACT_RUN_ID: settings.runId,
    CONTRACT_DREDD_HOOKS_LOADED: settings.loadedMarker ?? '',
  };
}

/** `undefined` when Dredd was started without the runner, which alone sets the target. */
export function readHooksEnvironment(env: NodeJS.ProcessEnv): HooksSettings | undefined {
  const target = readTargetVariables(env);
  const runId = envValue(env, 'CONTRACT_RUN_ID');
  if (!target || !runId) return undefined;
  return {
    target: { ...target, mockAdmin: env.CONTRACT_MOCK_ADMIN === '1' },
    runId,
    loadedMarker: envValue(env, 'CONTRACT_DREDD_HOOKS_LOADED'),
  };
}
