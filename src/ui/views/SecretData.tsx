// A Secret's keys, masked until the user asks: Reveal shows one value (decoded from base64), Copy puts
// it on the clipboard without showing it. Nothing is decoded before a click.
import { useState } from 'react';
import type { KubeObject } from '../../client/index.js';

/** base64 → text (UTF-8; bytes that are not text show as \xNN). */
export function decodeSecretValue(b64: string): string {
  let bin: string;
  try {
    bin = atob(b64);
  } catch {
    return '(not valid base64)';
  }
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return [...bytes].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : `\\x${b.toString(16).padStart(2, '0')}`)).join('');
  }
}

export function SecretData({ secret }: { secret: KubeObject }) {
  const data = ((secret as { data?: Record<string, string> }).data ?? {}) as Record<string, string>;
  const [shown, setShown] = useState<Set<string>>(new Set());
  const [copied, setCopied] = useState<string>();
  const keys = Object.keys(data).sort();
  const toggle = (k: string) =>
    setShown((s) => {
      const n = new Set(s);
      if (n.has(k)) n.delete(k);
      else n.add(k);
      return n;
    });
  return (
    <section className="panel" data-testid="secret-data">
      <h3>Data</h3>
      {(secret as { type?: string }).type && <p className="muted small">type {(secret as { type?: string }).type}</p>}
      {!keys.length ? (
        <span className="muted">No keys.</span>
      ) : (
        <table className="simple">
          <tbody>
            {keys.map((k) => (
              <tr key={k} data-testid={`secret-key-${k}`}>
                <td className="mono">{k}</td>
                <td className="mono wrap" data-testid="secret-value">
                  {shown.has(k) ? decodeSecretValue(data[k]!) : <span className="muted">•••••••• ({atobLength(data[k]!)} bytes)</span>}
                </td>
                <td>
                  <button className="btn small" onClick={() => toggle(k)} data-testid="secret-reveal" aria-pressed={shown.has(k)}>
                    {shown.has(k) ? 'Hide' : 'Reveal'}
                  </button>{' '}
                  <button
                    className="btn small"
                    data-testid="secret-copy"
                    onClick={() => {
                      void navigator.clipboard?.writeText(decodeSecretValue(data[k]!)).then(() => setCopied(k));
                    }}
                  >
                    {copied === k ? 'Copied' : 'Copy'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function atobLength(b64: string): number {
  const clean = b64.replace(/=+$/, '');
  return Math.floor((clean.length * 3) / 4);
}
