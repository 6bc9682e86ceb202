import { useState, type FormEvent } from 'react';

/** The key is asked for once per tab and kept in session storage; the service checks it on the first call. */
export const KeyPage = ({ onKey, refusal }: { onKey: (key: string) => void; refusal: string | null }) => {
  const [key, setKey] = useState('');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (key.trim()) onKey(key.trim());
  };
  return (
    <main className="key-page">
      <h1>Template studio</h1>
      {refusal && (
        <p role="alert" className="refusal">
          The service refused the key: {refusal}
        </p>
      )}
      <form onSubmit={submit}>
        <label htmlFor="api-key">API key</label>
        <input id="api-key" type="password" autoComplete="off" value={key} onChange={(event) => setKey(event.target.value)} autoFocus />
        <button type="submit">Open the studio</button>
      </form>
      <p className="hint">The key printed by <code>npm start</code>, or any key of your organization. It stays in this tab only.</p>
    </main>
  );
};
