/**
 * The mock's console (`/_mock/console`): a page where a team sees and steers what the mock does. Built with Preact
 * (a 4 KB React-compatible library, typed JSX, well kept), into one script the mock serves itself: nothing is
 * loaded from anywhere else.
 */
import './console.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { adminClient, problemOf } from './api.ts';
import { contractProblem, loadContract } from './contract.ts';
import { adminToken, maskedKey, partnerKey, setAdminToken, setPartnerKey } from './session.ts';
import { Notice } from './ui.tsx';
import { FormationsView } from './views/formations.tsx';
import { RequestsView } from './views/requests.tsx';
import { ScenariosView } from './views/scenarios.tsx';
import { TryView } from './views/try.tsx';
import { WebhooksView } from './views/webhooks.tsx';

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

function App() {
  const [viewId, setViewId] = useState(currentView);
  const [health, setHealth] = useState<string>();
  useEffect(() => {
    const follow = () => setViewId(currentView());
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  useEffect(() => {
    void adminClient()
      .GET('/_mock/health')
      .then((result) => {
        // A 503 is the health itself, saying that the store cannot be reached; anything else refused the console.
        const store = (result.error as { payload?: { checks?: { store?: { error?: string } } } } | undefined)?.payload?.checks?.store;
        if (result.data) setHealth(undefined);
        else setHealth(store?.error ? `The mock cannot serve: ${store.error}. It resumes by itself once its store answers.` : `The mock's admin API refused the console: ${problemOf(result).replace(/\.$/, '')}.`);
      });
  }, [adminToken.value]);
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
        {health ? (
          <Notice kind="error">
            {health}{/E_ADMIN_TOKEN_(MISSING|INVALID)/.test(health) ? ' Enter the admin token above.' : ''}
          </Notice>
        ) : null}
        {contractProblem.value ? <Notice kind="error">{contractProblem.value}</Notice> : null}
        <View />
      </main>
    </>
  );
}

function SessionBar() {
  const [key, setKey] = useState(partnerKey.value);
  const [token, setToken] = useState(adminToken.value);
  return (
    <form
      class="session"
      aria-label="Session"
      onSubmit={(event) => {
        event.preventDefault();
        setPartnerKey(key);
        setAdminToken(token);
      }}
    >
      <label>
        Partner API key
        <input type="password" autocomplete="off" spellcheck={false} size={34} value={key} placeholder="dk_test_… (empty: every partner)" onInput={(event) => setKey((event.currentTarget as HTMLInputElement).value)} />
      </label>
      <label>
        Admin token
        <input type="password" autocomplete="off" size={14} value={token} placeholder="if the mock asks" onInput={(event) => setToken((event.currentTarget as HTMLInputElement).value)} />
      </label>
      <button type="submit">Use</button>
      <span class="acting" role="status">
        Acting for {partnerKey.value ? <b>{maskedKey(partnerKey.value)}</b> : <b>every partner</b>}
      </span>
      {partnerKey.value ? (
        <button
          type="button"
          onClick={() => {
            setKey('');
            setPartnerKey('');
          }}
        >
          Every partner
        </button>
      ) : null}
    </form>
  );
}

void loadContract();
render(<App />, document.getElementById('console') as HTMLElement);
