/**
 * Whether the mock can serve the console: its health, read when the admin token changes; a 503 is the health itself
 * (the store cannot be reached, and says why), anything else refused the console.
 */
import { useEffect, useState } from 'preact/hooks';
import { adminClient, problemOf } from '../api.ts';
import { adminToken } from '../session.ts';

export function useHealthProblem(): string | undefined {
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    void adminClient()
      .GET('/_mock/health')
      .then((result) => {
        const store = (result.error as { payload?: { checks?: { store?: { error?: string } } } } | undefined)?.payload?.checks?.store;
        if (result.data) setProblem(undefined);
        else if (store?.error) setProblem(`The mock cannot serve: ${store.error}. It resumes by itself once its store answers.`);
        else {
          const refused = problemOf(result).replace(/\.$/, '');
          setProblem(`The mock's admin API refused the console: ${refused}.${/E_ADMIN_TOKEN_(MISSING|INVALID)/.test(refused) ? ' Enter the admin token above.' : ''}`);
        }
      });
  }, [adminToken.value]);
  return problem;
}
