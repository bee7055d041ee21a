/** Adds an endpoint for the partner, and shows its signing secret, once, as the portal does. */
import { useState } from 'preact/hooks';
import { adminClient, problemOf } from '../../api.ts';

export function NewEndpoint({ onProblem }: { onProblem: (problem: string) => void }) {
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState<string>();
  return (
    <form
      class="inline"
      onSubmit={(event) => {
        event.preventDefault();
        void adminClient()
          .POST('/_mock/webhook-endpoints', { body: { url } })
          .then((result) => {
            if (!result.data) return onProblem(problemOf(result));
            setSecret(result.data.payload.secret);
            setUrl('');
          });
      }}
    >
      <label>
        New endpoint URL
        <input type="url" required value={url} size={40} placeholder="http://localhost:3000/webhooks" onInput={(event) => setUrl((event.currentTarget as HTMLInputElement).value)} />
      </label>
      <button type="submit">Add endpoint</button>
      {secret ? (
        <span class="muted">
          Its signing secret (shown once): <code>{secret}</code>
        </span>
      ) : null}
    </form>
  );
}
