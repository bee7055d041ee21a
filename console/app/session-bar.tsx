/** Who the console acts as: a partner's key (or every partner), and the admin token when the mock asks for one. */
import { useState } from 'preact/hooks';
import { adminToken, maskedKey, partnerKey, setAdminToken, setPartnerKey } from '../session.ts';

export function SessionBar() {
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
