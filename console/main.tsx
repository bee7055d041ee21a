/**
 * The mock's console (`/_mock/console`): a page where a team sees and steers what the mock does. Built with Preact
 * (a 4 KB React-compatible library, typed JSX, well kept), into one script the mock serves itself: nothing is
 * loaded from anywhere else. `app/` is its frame, `views/` a folder per view, `live/` what follows the mock as it
 * changes, `ui/` the pieces the views share.
 */
import './console.css';
import { render } from 'preact';
import { App } from './app/app.tsx';
import { loadContract } from './contract.ts';

void loadContract();
render(<App />, document.getElementById('console') as HTMLElement);
