/**
 * Which store `npm run dev` gives the mock, and how it says so at start: its own SQLite file unless told otherwise
 * (an experiment on the contract does not touch the data `npm start` keeps), `npm start`'s with `--start-store`
 * (the same customers and companies in both, one process at a time: a SQLite file is held by the mock using it),
 * or whatever `--store` names.
 */
import { defaultStoreSpec, maskStoreUrl, parseStoreSpec } from '../../mock/store/open-store.ts';

export const devStoreSpec = 'sqlite:.mock-data/dev.db';
export const startStoreFlag = '--start-store';

export interface DevStore {
  /** The mock's arguments, with the `--store` chosen and without dev's own flag. */
  mockArgs: string[];
  /** The line dev prints at start. */
  announcement: string;
}

export function chooseDevStore(args: readonly string[], projectRoot: string): DevStore {
  const given = args.find((arg) => arg === '--store' || arg.startsWith('--store='));
  const sharing = args.includes(startStoreFlag);
  const rest = args.filter((arg) => arg !== startStoreFlag);
  if (given !== undefined) {
    if (sharing) throw new Error(`${startStoreFlag} and --store name two stores: give one`);
    const value = given === '--store' ? args[args.indexOf(given) + 1] : given.slice('--store='.length);
    return { mockArgs: rest, announcement: `store: ${maskStoreUrl(value ?? '')} (--store)` };
  }
  // Absolute, so that the mock finds the same file whatever folder dev was started from.
  const [spec, whose] = sharing ? [defaultStoreSpec, `npm start's, ${startStoreFlag}`] : [devStoreSpec, `dev's own; ${startStoreFlag} for npm start's, ${defaultStoreSpec}`];
  const parsed = parseStoreSpec(spec, projectRoot);
  const store = parsed.kind === 'sqlite' ? `sqlite:${parsed.path}` : spec;
  return { mockArgs: [...rest, '--store', store], announcement: `store: ${store} (${whose})` };
}
