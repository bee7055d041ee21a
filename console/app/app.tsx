/** The console's frame: the session, the views (one at a time, by the page's `#/view`), and what keeps it from serving. */
import { useEffect, useState } from 'preact/hooks';
import { contractProblem } from '../contract.ts';
import { Notice } from '../ui/layout.tsx';
import { FormationsView } from '../views/formations/formations-view.tsx';
import { RequestsView } from '../views/requests/requests-view.tsx';
import { ScenariosView } from '../views/scenarios/scenarios-view.tsx';
import { TryView } from '../views/try/try-view.tsx';
import { WebhooksView } from '../views/webhooks/webhooks-view.tsx';
import { useHealthProblem } from './health.ts';
import { SessionBar } from './session-bar.tsx';

const views = [
  { id: 'requests', title: 'Requests', view: RequestsView },
  { id: 'try', title: 'Try', view: TryView },
  { id: 'formations', title: 'Customers and companies', view: FormationsView },
  { id: 'webhooks', title: 'Webhooks', view: WebhooksView },
  { id: 'scenarios', title: 'Scenarios and settings', view: ScenariosView },
] as const;

function currentView(): string {
  const id = location.hash.replace(/^#\/?/, '');
  return views.some((view) => view.id === id) ? id : 'requests';
}

export function App() {
  const [viewId, setViewId] = useState(currentView);
  const health = useHealthProblem();
  useEffect(() => {
    const follow = () => setViewId(currentView());
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  const active = views.find((view) => view.id === viewId) ?? views[0];
  const View = active.view;
  return (
    <>
      <header class="top">
        <h1>
          Partner Formation API mock <span class="muted">console</span>
        </h1>
        <SessionBar />
        <nav aria-label="Views">
          {views.map((view) => (
            <a href={`#/${view.id}`} aria-current={view.id === active.id ? 'page' : undefined}>
              {view.title}
            </a>
          ))}
          <a href="/docs">API docs</a>
          <a href="/_mock/docs">Admin API docs</a>
        </nav>
      </header>
      <main>
        {health ? <Notice kind="error">{health}</Notice> : null}
        {contractProblem.value ? <Notice kind="error">{contractProblem.value}</Notice> : null}
        <View />
      </main>
    </>
  );
}
