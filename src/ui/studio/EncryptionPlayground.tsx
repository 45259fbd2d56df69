// Encryption playground: type a resource, see which provider writes it and which are tried on
// reads; plus every entry that overlaps, is masked or only adds read fallbacks.
import { useMemo, useState } from 'react';
import { encryptionFlags, explainEncryption, type ProviderStep } from '../../config/playground/index.js';

type Jump = (path: string) => void;

const SAMPLES = ['secrets', 'configmaps', 'deployments.apps', 'crontabs.stable.example.com', 'events'];

function Step({ step, role, onJump }: { step: ProviderStep; role: string; onJump: Jump }) {
  return (
    <li className="pg-provider" data-testid="provider-step" data-type={step.type}>
      <span className="pill">{role}</span> <strong>{step.description}</strong>{' '}
      <button type="button" className="link mono small" onClick={() => onJump(step.path)}>
        {step.path}
      </button>
      {step.prefixes.length > 0 && (
        <div className="small muted">
          stored prefix{step.prefixes.length > 1 ? 'es' : ''}:{' '}
          {step.prefixes.map((p, i) => (
            <code key={i} className="mono" data-testid="stored-prefix">
              {p === '' ? '(none: plain bytes)' : p}
              {i < step.prefixes.length - 1 ? ' ' : ''}
            </code>
          ))}
        </div>
      )}
    </li>
  );
}

export function EncryptionPlayground({ doc, onJump }: { doc: unknown; onJump: Jump }) {
  const [resource, setResource] = useState('secrets');
  const explanation = useMemo(() => explainEncryption(doc, resource), [doc, resource]);
  const flags = useMemo(() => encryptionFlags(doc), [doc]);
  const e = explanation;
  return (
    <div className="playground" data-testid="encryption-playground">
      <p className="muted small">
        Resolved as the server does: an entry naming the resource, else its group wildcard (<code>*.apps</code>, <code>*.</code> for core), else <code>*.*</code>. The first provider of the first matching entry
        writes; reads try every provider of every entry listing that name, in order.
      </p>
      <div className="pg-block">
        <label className="small" htmlFor="pg-resource">
          Resource (plural, with its group: <code>secrets</code>, <code>deployments.apps</code>)
        </label>
        <input id="pg-resource" className="sf-input mono" value={resource} spellCheck={false} data-testid="resource-input" onChange={(ev) => setResource(ev.target.value)} />
        <div className="sf-row pg-chips">
          {SAMPLES.map((s) => (
            <button key={s} type="button" className="btn small" onClick={() => setResource(s)}>
              {s}
            </button>
          ))}
        </div>
      </div>
      <div className="pg-result" data-testid="encryption-result">
        {e.invalid ? (
          <div className="pg-summary bad">{e.invalid}</div>
        ) : (
          <>
            <div className={`pg-summary ${e.encrypted ? 'ok' : 'warn'}`} data-testid="encryption-summary" data-encrypted={String(e.encrypted)}>
              {e.write ? (
                <>
                  <code>{e.display}</code> is written with <strong data-testid="write-provider">{e.write.description}</strong>
                  {e.match && (
                    <>
                      {' '}
                      (matched by <code>{e.match.pattern}</code>)
                    </>
                  )}
                </>
              ) : (
                <>
                  <code>{e.display}</code> is not covered: stored unencrypted
                </>
              )}
            </div>
            {e.write && (
              <div className="pg-block small" data-testid="sample-stored">
                A sample value of <code>{e.display}</code> is stored as{' '}
                {e.write.prefixes[0] ? (
                  <code className="mono">
                    {e.write.prefixes[0]}
                    {'<ciphertext>'}
                  </code>
                ) : (
                  <code className="mono">{'{"kind":...} (plain, readable in the database)'}</code>
                )}
              </div>
            )}
            {e.reads.length > 0 && (
              <div className="pg-block">
                <h4>Providers in order</h4>
                <ol className="pg-providers" data-testid="read-order">
                  {e.reads.map((s, i) => (
                    <Step key={s.path} step={s} role={i === 0 ? 'writes · reads' : 'reads'} onJump={onJump} />
                  ))}
                </ol>
              </div>
            )}
            {e.notes.length > 0 && (
              <ul className="pg-notes small">
                {e.notes.map((n) => (
                  <li key={n}>{n}</li>
                ))}
              </ul>
            )}
          </>
        )}
      </div>
      <div className="pg-block" data-testid="encryption-flags">
        <h4>Overlapping and shadowed entries</h4>
        {flags.length === 0 ? (
          <div className="muted small">none: every listed resource takes effect where it is listed</div>
        ) : (
          <ul className="pg-flags">
            {flags.map((f, i) => (
              <li key={i} className={f.severity} data-kind={f.kind}>
                <span className="pill">{f.kind}</span> {f.message}{' '}
                <button type="button" className="link mono small" onClick={() => onJump(f.path)}>
                  {f.path}
                </button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </div>
  );
}
