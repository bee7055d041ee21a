import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** The rules .spectral.yaml adds of its own, as opposed to those it takes from spectral:oas and OWASP. */
export const houseRules = [
  'root-security-required',
  'operation-documented',
  'operation-2xx-response',
  'operation-error-response',
  'create-idempotency-key',
  'response-body-envelope',
  'error-example-codes-in-enum',
  'sent-with-error-codes-exemplified',
  'property-description-and-example',
  'property-names-camel-case',
  'pattern-described',
  'enum-openness-declared',
  'enum-openness-on-enum',
  'deprecation-dated',
  'deprecated-operation-headers',
];

export interface LintResult {
  code: string;
  message: string;
  /** JSON path of the finding inside `source`. */
  path: string[];
  /** 0 error, 1 warn, 2 info, 3 hint. */
  severity: number;
  source?: string;
}

/**
 * Lints `document` with `ruleset` through the Spectral CLI, as `npm run lint:spectral` does, so that the tests check
 * the real configuration: its function loading, aliases and overrides included.
 */
export function lint(document: string, ruleset: string): Promise<LintResult[]> {
  const args = ['lint', document, '--ruleset', ruleset, '--format', 'json', '--quiet'];
  const options = { maxBuffer: 64 * 1024 * 1024 };
  return new Promise((resolve, reject) => {
    execFile(`${repoRoot}node_modules/.bin/spectral`, args, options, (error, stdout, stderr) => {
      // Exit code 1 only says that there are results; anything else means the lint itself failed.
      if (error && error.code !== 1) {
        reject(new Error(`spectral ${args.join(' ')} failed: ${stderr || error.message}`));
        return;
      }
      try {
        const results = JSON.parse(stdout) as (Omit<LintResult, 'path'> & { path: (string | number)[] })[];
        resolve(results.map((result) => ({ ...result, path: result.path.map(String) })));
      } catch {
        reject(new Error(`spectral ${args.join(' ')} printed no JSON:\n${stdout}${stderr}`));
      }
    });
  });
}
