/** The run-time settings, for the session partner or every partner, and resetting the data. */
import { useEffect, useState } from 'preact/hooks';
import { adminClient, type AdminSchemas } from '../../api.ts';
import { useChanges } from '../../live/changes.ts';
import { partnerKey } from '../../session.ts';
import type { useOutcome } from '../../ui/actions.tsx';
import { Panel } from '../../ui/layout.tsx';

export function SettingsPanel({ who, outcome }: { who: string; outcome: ReturnType<typeof useOutcome> }) {
  const [settings, setSettings] = useState<AdminSchemas['Settings']>();
  const changed = useChanges(['settings']);
  useEffect(() => {
    void adminClient()
      .GET('/_mock/settings')
      .then((result) => result.data && setSettings(result.data.payload));
  }, [partnerKey.value, changed]);
  const admin = adminClient();
  return (
    <Panel title="Settings">
      {settings ? (
        <label class="check">
          <input
            type="checkbox"
            checked={settings.validateResponses}
            onChange={(event) => void admin.PUT('/_mock/settings', { body: { validateResponses: (event.currentTarget as HTMLInputElement).checked } }).then(outcome.settle('Settings saved.'))}
          />{' '}
          Check every answer against the contract for {who} requests (an answer that breaks it becomes a 500)
        </label>
      ) : null}
      <p>
        <button
          type="button"
          class="danger"
          onClick={() => {
            if (confirm(`Reset ${who} data?`)) void admin.POST('/_mock/reset').then(outcome.settle('Reset.'));
          }}
        >
          Reset {who} data
        </button>
      </p>
    </Panel>
  );
}
