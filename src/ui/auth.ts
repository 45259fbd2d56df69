// Sign-in state of the explorer: a bearer token kept in session storage only (dropped on sign-out
// and when the server stops accepting it), and whether the server asked for credentials (401).
// In proxy mode the proxy replaces Authorization with the kubeconfig's credentials server-side.

import { whoAmI } from './data/identity.js';

const KEY = 'periscope.token';

export interface AuthState {
  /** The pasted token, if any. */
  token?: string;
  /** The server answered 401: show the sign-in page (the current page stays in the address bar). */
  signInRequired: boolean;
  /** Bumped on every sign-in/out so views refetch with the new identity. */
  generation: number;
}

function stored(): string | undefined {
  try {
    return sessionStorage.getItem(KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

let state: AuthState = { token: stored(), signInRequired: false, generation: 0 };
const listeners = new Set<() => void>();

function set(next: Partial<AuthState>): void {
  state = { ...state, ...next };
  for (const l of listeners) l();
}

function persist(token: string | undefined): void {
  try {
    if (token) sessionStorage.setItem(KEY, token);
    else sessionStorage.removeItem(KEY);
  } catch {
    /* storage unavailable: the token lives in memory only */
  }
}

export { whoAmI };

export const authStore = {
  subscribe(fn: () => void): () => void {
    listeners.add(fn);
    return () => listeners.delete(fn);
  },
  get: (): AuthState => state,
  token: (): string | undefined => state.token,
  /** A request was answered 401: the token (if any) is no longer good. */
  unauthorized(): void {
    if (state.signInRequired) return;
    persist(undefined);
    set({ token: undefined, signInRequired: true });
  },
  /** Checks the token with the server first; resolves false when it is not accepted. */
  async signIn(token: string): Promise<boolean> {
    const t = token.trim();
    if (!t || (await whoAmI(t)) === undefined) return false;
    persist(t);
    set({ token: t, signInRequired: false, generation: state.generation + 1 });
    return true;
  },
  signOut(): void {
    persist(undefined);
    set({ token: undefined, signInRequired: false, generation: state.generation + 1 });
  },
};

/** fetch that reports 401 answers to the sign-in state. */
export const authFetch: typeof fetch = async (input, init) => {
  const res = await fetch(input, init);
  if (res.status === 401) authStore.unauthorized();
  return res;
};
