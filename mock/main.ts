/** `npm start` (and `npm run mock`): the mock, run from a clone. */
import { runMock } from './app/run-mock.ts';

await runMock({ command: 'npm start --' });
