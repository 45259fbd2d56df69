// The sign-in page (shown when the server answers 401) and the current-user badge of the top bar.
import { useEffect, useState, useSyncExternalStore, type FormEvent } from 'react';
import { authStore, whoAmI } from '../auth.js';

export function SignInPage() {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (!(await authStore.signIn(token))) setError('The server did not accept this token (Unauthorized).');
    } catch (err) {
      setError(`Could not reach the server: ${(err as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="state signin" data-testid="sign-in">
      <div className="state-title">Sign in to the API server</div>
      <p className="muted">
        The server asked for credentials. Paste a bearer token (for example from <code>kubectl create token NAME</code> or the data directory's
        admin kubeconfig). It is kept in this tab's session storage only.
      </p>
      <form onSubmit={submit}>
        <textarea
          aria-label="Bearer token"
          data-testid="token-input"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          rows={4}
          spellCheck={false}
          autoComplete="off"
          placeholder="eyJhbGciOi…"
        />
        {error && (
          <div className="signin-error" role="alert" data-testid="sign-in-error">
            {error}
          </div>
        )}
        <button className="btn" type="submit" disabled={busy || token.trim() === ''} data-testid="sign-in-submit">
          Sign in
        </button>
      </form>
    </div>
  );
}

/** Who the explorer acts as (SelfSubjectReview), with sign-out when a token was pasted. */
export function UserBadge() {
  const auth = useSyncExternalStore(authStore.subscribe, authStore.get);
  const [user, setUser] = useState<{ username?: string; groups?: string[] }>();
  useEffect(() => {
    let live = true;
    setUser(undefined);
    whoAmI(auth.token).then(
      (u) => live && setUser(u),
      () => live && setUser(undefined),
    );
    return () => {
      live = false;
    };
  }, [auth.token, auth.generation]);
  if (auth.signInRequired) return null;
  return (
    <span className="user-badge" data-testid="current-user" title={user?.groups?.length ? `groups: ${user.groups.join(', ')}` : undefined}>
      {user?.username ?? '…'}
      {auth.token && (
        <button className="btn small" data-testid="sign-out" onClick={() => authStore.signOut()}>
          Sign out
        </button>
      )}
    </span>
  );
}
