/** What a view's controls share: copying text, and saying what an action came to. */
import { useState } from 'preact/hooks';
import { problemOf } from '../api.ts';
import { Notice } from './layout.tsx';

export function CopyButton({ text, label }: { text: () => string; label: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard?.writeText(text()).catch(() => undefined);
        setDone(true);
        setTimeout(() => setDone(false), 1500);
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

export type CallResult = { data?: unknown; error?: unknown; response: Response };

/**
 * What a view's actions came to: `settle(message)` takes an action's result and shows the message on success or the
 * error envelope's code and message otherwise; `notices` shows both. What the action changed, the view reads again
 * when the mock says it changed (live/changes.ts).
 */
export function useOutcome() {
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();
  return {
    problem,
    setProblem,
    settle: (message: string) => (result: CallResult) => {
      if (result.data) {
        setNotice(message);
        setProblem(undefined);
      } else setProblem(problemOf(result));
    },
    notices: (
      <>
        {problem ? <Notice kind="error">{problem}</Notice> : null}
        {notice ? <Notice>{notice}</Notice> : null}
      </>
    ),
  };
}
