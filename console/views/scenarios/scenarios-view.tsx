/**
 * Scenarios and settings: forced answers armed for the session partner (or, without a key, for every partner), and
 * the run-time settings, with resetting the data. Both follow the mock: a fault used by a request counts down here
 * as it happens, and goes once it is used up.
 */
import { partnerKey } from '../../session.ts';
import { useOutcome } from '../../ui/actions.tsx';
import { ForcedAnswersPanel } from './forced-answers-panel.tsx';
import { SettingsPanel } from './settings-panel.tsx';

export function ScenariosView() {
  const outcome = useOutcome();
  const who = partnerKey.value ? "this partner's" : "every partner's";
  return (
    <div class="stack">
      {outcome.notices}
      <ForcedAnswersPanel who={who} outcome={outcome} />
      <SettingsPanel who={who} outcome={outcome} />
    </div>
  );
}
