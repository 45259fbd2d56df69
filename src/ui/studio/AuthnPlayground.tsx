// Authentication playground: a JWT (pasted, or built from sample claims, optionally signed with a
// generated key) run through the document being edited, step by step.
import { useEffect, useMemo, useState } from 'react';
import {
  buildUnsignedJwt,
  evaluateAuthentication,
  generateSigningKey,
  sampleClaimsFor,
  signJwt,
  type AuthenticationEvaluation,
  type CheckResult,
  type MappingResult,
} from '../../config/playground/index.js';

type Jump = (path: string) => void;

const STATUS_ICON: Record<string, string> = { pass: '✓', fail: '✗', error: '✗', skip: '–', verified: '✓', invalid: '✗', skipped: '–' };

function PathLink({ path, onJump }: { path: string; onJump: Jump }) {
  if (!path) return null;
  return (
    <button type="button" className="link mono small" onClick={() => onJump(path)} title="Show in the form and YAML">
      {path}
    </button>
  );
}

function Checks({ title, rows, onJump, testId }: { title: string; rows: CheckResult[]; onJump: Jump; testId: string }) {
  return (
    <div className="pg-block" data-testid={testId}>
      <h4>{title}</h4>
      {rows.length === 0 ? (
        <div className="muted small">none configured</div>
      ) : (
        <table className="simple pg-table">
          <tbody>
            {rows.map((r, i) => (
              <tr key={i} className={`pg-${r.status}`} data-status={r.status}>
                <td className="pg-icon">{STATUS_ICON[r.status]}</td>
                <td className="mono">{r.label}</td>
                <td>{r.detail}</td>
                <td>
                  <PathLink path={r.path} onJump={onJump} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function showMapped(v: MappingResult['value']): string {
  if (v === undefined) return '';
  return typeof v === 'string' ? JSON.stringify(v) : `[${v.map((x) => JSON.stringify(x)).join(', ')}]`;
}

export function AuthnPlayground({ doc, onJump }: { doc: unknown; onJump: Jump }) {
  const authenticators = useMemo(() => {
    const jwt = (doc as { jwt?: unknown })?.jwt;
    return Array.isArray(jwt) ? jwt : [];
  }, [doc]);
  const [fitTo, setFitTo] = useState(0);
  const [claimsText, setClaimsText] = useState(() => JSON.stringify(sampleClaimsFor(authenticators[0]), null, 2));
  const [token, setToken] = useState('');
  const [jwks, setJwks] = useState('');
  const [builderError, setBuilderError] = useState<string>();
  const [result, setResult] = useState<AuthenticationEvaluation>();

  const claims = (): Record<string, unknown> | undefined => {
    try {
      const v: unknown = JSON.parse(claimsText);
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('claims must be a JSON object');
      setBuilderError(undefined);
      return v as Record<string, unknown>;
    } catch (err) {
      setBuilderError((err as Error).message);
      return undefined;
    }
  };

  useEffect(() => {
    if (token.trim() === '') {
      setResult(undefined);
      return;
    }
    let cancelled = false;
    void evaluateAuthentication(doc, token.trim(), { jwks: jwks.trim() === '' ? undefined : jwks }).then((r) => !cancelled && setResult(r));
    return () => {
      cancelled = true;
    };
  }, [doc, token, jwks]);

  return (
    <div className="playground" data-testid="authn-playground">
      <p className="muted small">
        Runs a token through this document the way the server does: the issuer picks the authenticator, then expiry, audience, claim rules, claim mappings and user rules. CEL is evaluated with the same
        compiler as validation.
      </p>
      <div className="pg-block">
        <h4>Build a token from claims</h4>
        <div className="sf-row">
          <label className="small">
            fit to{' '}
            <select className="sf-select" value={fitTo} onChange={(e) => setFitTo(Number(e.target.value))} data-testid="fit-authenticator">
              {authenticators.length === 0 && <option value={0}>(no authenticators)</option>}
              {authenticators.map((a, i) => (
                <option key={i} value={i}>
                  jwt[{i}] {String((a as { issuer?: { url?: unknown } })?.issuer?.url ?? '')}
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="btn small" data-testid="sample-claims" onClick={() => setClaimsText(JSON.stringify(sampleClaimsFor(authenticators[fitTo]), null, 2))}>
            Sample claims
          </button>
        </div>
        <textarea className="sf-input mono" rows={10} value={claimsText} spellCheck={false} data-testid="claims-input" aria-label="Token claims (JSON)" onChange={(e) => setClaimsText(e.target.value)} />
        {builderError && <div className="bad small">{builderError}</div>}
        <div className="sf-row">
          <button
            type="button"
            className="btn small"
            data-testid="build-token"
            onClick={() => {
              const c = claims();
              if (c) setToken(buildUnsignedJwt(c));
            }}
          >
            Build unsigned token
          </button>
          <button
            type="button"
            className="btn small"
            data-testid="sign-token"
            title="Generates an RS256 key pair in the browser, signs the claims and puts the public key in the JWKS box"
            onClick={async () => {
              const c = claims();
              if (!c) return;
              const key = await generateSigningKey('RS256', 'playground');
              setJwks(JSON.stringify({ keys: [key.publicJwk] }, null, 2));
              setToken(await signJwt(c, key));
            }}
          >
            Sign with a generated key
          </button>
        </div>
      </div>
      <div className="pg-block">
        <h4>Token</h4>
        <textarea className="sf-input mono" rows={4} value={token} spellCheck={false} placeholder="paste a JWT (header.payload.signature)" data-testid="token-input" aria-label="JWT" onChange={(e) => setToken(e.target.value)} />
        <h4>JWKS (optional)</h4>
        <textarea
          className="sf-input mono"
          rows={3}
          value={jwks}
          spellCheck={false}
          placeholder='{"keys": [...]} from the issuer; without it the signature is not checked'
          data-testid="jwks-input"
          aria-label="JWKS"
          onChange={(e) => setJwks(e.target.value)}
        />
      </div>
      {result && <AuthnResult result={result} onJump={onJump} />}
    </div>
  );
}

function AuthnResult({ result, onJump }: { result: AuthenticationEvaluation; onJump: Jump }) {
  const r = result.result;
  return (
    <div className="pg-result" data-testid="authn-result">
      <div className={`pg-summary ${result.authenticated ? 'ok' : 'bad'}`} data-testid="authn-summary" data-authenticated={String(result.authenticated)}>
        {result.authenticated ? '✓ ' : '✗ '}
        {result.summary}
      </div>
      <div className={`pg-signature pg-${result.signature.status}`} data-testid="signature-status" data-status={result.signature.status}>
        <strong>Signature {result.signature.status === 'skipped' ? 'not checked' : result.signature.status}</strong>: {result.signature.detail}
      </div>
      {result.issuers.length > 0 && (
        <div className="pg-block" data-testid="issuer-matches">
          <h4>Issuer (iss {JSON.stringify(result.token?.claims.iss)})</h4>
          <table className="simple pg-table">
            <tbody>
              {result.issuers.map((m) => (
                <tr key={m.index} className={m.matches ? 'pg-pass' : 'pg-skip'} data-matches={String(m.matches)}>
                  <td className="pg-icon">{m.matches ? '✓' : '–'}</td>
                  <td className="mono">jwt[{m.index}]</td>
                  <td className="mono">{m.url}</td>
                  <td>{m.matches ? 'handles this token' : 'different issuer'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {r && (
        <>
          <Checks title="Token lifetime and audience" rows={[...r.lifetime, r.audience]} onJump={onJump} testId="token-checks" />
          <Checks title="Claim validation rules" rows={r.claimValidation} onJump={onJump} testId="claim-rules" />
          <div className="pg-block" data-testid="claim-mappings">
            <h4>Claim mappings</h4>
            <table className="simple pg-table">
              <tbody>
                {r.mappings.map((m, i) => (
                  <tr key={i} className={`pg-${m.status}`} data-attribute={m.attribute}>
                    <td className="pg-icon">{STATUS_ICON[m.status]}</td>
                    <td className="mono">{m.attribute}</td>
                    <td className="mono">{showMapped(m.value)}</td>
                    <td>
                      <span className="muted">{m.source}</span>
                      {m.status === 'error' ? <div className="bad">{m.detail}</div> : null}
                    </td>
                    <td>
                      <PathLink path={m.path} onJump={onJump} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {r.user && (
            <div className="pg-block pg-user" data-testid="mapped-user">
              <h4>User</h4>
              <dl className="meta-grid">
                <dt>username</dt>
                <dd className="mono" data-testid="user-username">
                  {r.user.username}
                </dd>
                <dt>uid</dt>
                <dd className="mono">{r.user.uid || <span className="muted">(none)</span>}</dd>
                <dt>groups</dt>
                <dd className="mono" data-testid="user-groups">
                  {r.user.groups.length > 0 ? r.user.groups.join(', ') : <span className="muted">(none)</span>}
                </dd>
                <dt>extra</dt>
                <dd className="mono">
                  {Object.keys(r.user.extra).length > 0 ? (
                    Object.entries(r.user.extra).map(([k, v]) => (
                      <div key={k}>
                        {k}: {v.join(', ')}
                      </div>
                    ))
                  ) : (
                    <span className="muted">(none)</span>
                  )}
                </dd>
              </dl>
            </div>
          )}
          <Checks title="User validation rules" rows={r.userValidation} onJump={onJump} testId="user-rules" />
        </>
      )}
      {result.token && (
        <details className="pg-block">
          <summary>Decoded token</summary>
          <pre className="manifest small">{JSON.stringify({ header: result.token.header, claims: result.token.claims }, null, 2)}</pre>
        </details>
      )}
    </div>
  );
}
