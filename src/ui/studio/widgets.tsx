// Inputs of the studio form that know their value's format: durations, CEL, encryption keys,
// enumerations, optional booleans, embedded YAML.
import { useEffect, useMemo, useState } from 'react';
import { base64DecodedLength, compileCel, parseDuration, type CelPurpose } from '../../config/index.js';
import { CEL_VARIABLE_HELP, DURATION_SUGGESTIONS } from './hints.js';
import { keySizes, randomKeyBase64, type KeyedProvider } from './keys.js';
import { toYaml } from './yaml-edit.js';
import { parse as parseYaml } from 'yaml';

interface TextProps {
  id: string;
  value: string | undefined;
  onChange: (v: string) => void;
  placeholder?: string;
  disabled?: boolean;
  invalid?: boolean;
}

export function TextInput({ id, value, onChange, placeholder, disabled, invalid }: TextProps) {
  return (
    <input
      id={id}
      className={`sf-input${invalid ? ' invalid' : ''}`}
      type="text"
      value={value ?? ''}
      placeholder={placeholder}
      disabled={disabled}
      spellCheck={false}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

function humanDuration(ms: number): string {
  if (ms === 0) return '0';
  const parts: string[] = [];
  let rest = Math.abs(ms);
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['min', 60_000],
    ['s', 1000],
    ['ms', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n} ${unit}`);
    rest -= n * size;
  }
  return `${ms < 0 ? '-' : ''}${parts.join(' ') || `${Math.abs(ms)} ms`}`;
}

export function DurationInput(props: TextProps) {
  const { value } = props;
  const ms = value ? parseDuration(value) : undefined;
  return (
    <div className="sf-duration">
      <input
        id={props.id}
        className={`sf-input mono${props.invalid || (value && ms === undefined) ? ' invalid' : ''}`}
        type="text"
        list="studio-durations"
        value={value ?? ''}
        placeholder="30s"
        disabled={props.disabled}
        spellCheck={false}
        onChange={(e) => props.onChange(e.target.value)}
      />
      <span className="sf-hint mono" data-testid="duration-hint">
        {!value ? 'e.g. 5s, 1m30s' : ms === undefined ? 'not a duration (use 300ms, 5s, 1m30s, 2h)' : `= ${humanDuration(ms)}`}
      </span>
      <datalist id="studio-durations">
        {DURATION_SUGGESTIONS.map((d) => (
          <option key={d} value={d} />
        ))}
      </datalist>
    </div>
  );
}

export function CelInput({ purpose, ...props }: TextProps & { purpose: CelPurpose }) {
  const value = props.value ?? '';
  // Compile on a short delay so typing stays smooth on long expressions.
  const [checked, setChecked] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setChecked(value), 120);
    return () => clearTimeout(t);
  }, [value]);
  const result = useMemo(() => (checked.trim() === '' ? undefined : compileCel(purpose, checked)), [purpose, checked]);
  const rows = Math.min(6, Math.max(1, value.split('\n').length));
  return (
    <div className="sf-cel">
      <textarea
        id={props.id}
        className={`sf-input mono${props.invalid || (result && !result.ok) ? ' invalid' : ''}`}
        rows={rows}
        value={value}
        placeholder={props.placeholder}
        disabled={props.disabled}
        spellCheck={false}
        onChange={(e) => props.onChange(e.target.value)}
      />
      <div className="sf-hint" data-testid="cel-status" data-state={result === undefined ? 'empty' : result.ok ? 'ok' : 'error'}>
        {result === undefined ? (
          <span className="muted">{CEL_VARIABLE_HELP[purpose]}</span>
        ) : result.ok ? (
          <span className="ok">
            ✓ compiles · type <code>{result.type}</code>
          </span>
        ) : (
          <span className="bad">✗ {result.message}</span>
        )}
      </div>
    </div>
  );
}

export function KeyInput({ provider, ...props }: TextProps & { provider: KeyedProvider | undefined }) {
  const sizes = keySizes(provider);
  const [size, setSize] = useState(sizes[sizes.length - 1]!);
  const length = props.value ? base64DecodedLength(props.value) : undefined;
  const ok = length !== undefined && sizes.includes(length);
  return (
    <div className="sf-key">
      <div className="sf-row">
        <input
          id={props.id}
          className={`sf-input mono${props.invalid || (props.value && !ok) ? ' invalid' : ''}`}
          type="text"
          value={props.value ?? ''}
          placeholder="base64 key bytes"
          disabled={props.disabled}
          spellCheck={false}
          autoComplete="off"
          onChange={(e) => props.onChange(e.target.value)}
        />
        {sizes.length > 1 && (
          <select className="sf-select" value={size} onChange={(e) => setSize(Number(e.target.value))} disabled={props.disabled} aria-label="Key size">
            {sizes.map((s) => (
              <option key={s} value={s}>
                {s * 8}-bit
              </option>
            ))}
          </select>
        )}
        <button type="button" className="btn small" data-testid="generate-key" disabled={props.disabled} onClick={() => props.onChange(randomKeyBase64(size))}>
          Generate
        </button>
      </div>
      <span className="sf-hint" data-testid="key-hint">
        {!props.value ? (
          `${sizes.join(', ')} random bytes, base64`
        ) : length === undefined ? (
          <span className="bad">not valid base64</span>
        ) : ok ? (
          <span className="ok">✓ {length} bytes</span>
        ) : (
          <span className="bad">
            {length} bytes; {provider ?? 'this provider'} takes {sizes.join(', ')}
          </span>
        )}
      </span>
    </div>
  );
}

interface EnumProps {
  id: string;
  value: unknown;
  options: readonly string[];
  required: boolean;
  defaultValue?: string;
  disabled?: boolean;
  invalid?: boolean;
  onChange: (v: string | undefined) => void;
}

export function EnumSelect({ id, value, options, required, defaultValue, disabled, invalid, onChange }: EnumProps) {
  const current = typeof value === 'string' ? value : '';
  const unknown = current !== '' && !options.includes(current);
  return (
    <select id={id} className={`sf-select${invalid || unknown ? ' invalid' : ''}`} value={current} disabled={disabled} onChange={(e) => onChange(e.target.value === '' ? undefined : e.target.value)}>
      {(!required || current === '') && <option value="">{defaultValue ? `(default: ${defaultValue})` : required ? '(choose)' : '(unset)'}</option>}
      {unknown && <option value={current}>{current} (not supported)</option>}
      {options.map((o) => (
        <option key={o} value={o}>
          {o}
        </option>
      ))}
    </select>
  );
}

export function BoolInput(props: { id: string; value: unknown; required: boolean; defaultValue?: boolean; disabled?: boolean; onChange: (v: boolean | undefined) => void }) {
  if (props.required || props.defaultValue === undefined) {
    return (
      <label className="sf-check">
        <input id={props.id} type="checkbox" checked={props.value === true} disabled={props.disabled} onChange={(e) => props.onChange(e.target.checked)} />
        {props.value === true ? 'true' : 'false'}
      </label>
    );
  }
  const v = props.value === true ? 'true' : props.value === false ? 'false' : '';
  return (
    <select id={props.id} className="sf-select" value={v} disabled={props.disabled} onChange={(e) => props.onChange(e.target.value === '' ? undefined : e.target.value === 'true')}>
      <option value="">(default: {String(props.defaultValue)})</option>
      <option value="true">true</option>
      <option value="false">false</option>
    </select>
  );
}

export function IntInput(props: { id: string; value: unknown; min?: number; max?: number; disabled?: boolean; invalid?: boolean; onChange: (v: number | undefined) => void }) {
  const [text, setText] = useState(typeof props.value === 'number' ? String(props.value) : '');
  useEffect(() => {
    if (typeof props.value === 'number' && Number(text) !== props.value) setText(String(props.value));
    if (props.value === undefined && text !== '' && !Number.isNaN(Number(text))) setText('');
    // Only outside changes of the value resync the text being typed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.value]);
  return (
    <input
      id={props.id}
      className={`sf-input mono narrow${props.invalid ? ' invalid' : ''}`}
      type="number"
      inputMode="numeric"
      value={text}
      min={props.min}
      max={props.max}
      disabled={props.disabled}
      onChange={(e) => {
        setText(e.target.value);
        if (e.target.value === '') props.onChange(undefined);
        else if (/^-?\d+$/.test(e.target.value)) props.onChange(Number(e.target.value));
      }}
    />
  );
}

/** An embedded object (admission plugin settings) edited as YAML text. */
export function UnstructuredInput(props: { id: string; value: unknown; disabled?: boolean; onChange: (v: unknown) => void }) {
  const [text, setText] = useState(() => (props.value === undefined ? '' : toYaml(props.value)));
  const [error, setError] = useState<string>();
  const [lastSent, setLastSent] = useState<unknown>(props.value);
  useEffect(() => {
    if (props.value !== lastSent && JSON.stringify(props.value) !== JSON.stringify(lastSent)) {
      setText(props.value === undefined ? '' : toYaml(props.value));
      setLastSent(props.value);
      setError(undefined);
    }
  }, [props.value, lastSent]);
  return (
    <div className="sf-cel">
      <textarea
        id={props.id}
        className={`sf-input mono${error ? ' invalid' : ''}`}
        rows={Math.min(12, Math.max(3, text.split('\n').length))}
        value={text}
        disabled={props.disabled}
        spellCheck={false}
        placeholder="settings as YAML"
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value.trim() === '') {
            setError(undefined);
            setLastSent(undefined);
            props.onChange(undefined);
            return;
          }
          try {
            const v: unknown = parseYaml(e.target.value);
            if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new Error('the settings must be a mapping');
            setError(undefined);
            setLastSent(v);
            props.onChange(v);
          } catch (err) {
            setError((err as Error).message.split('\n')[0]);
          }
        }}
      />
      <div className="sf-hint">{error ? <span className="bad">{error}</span> : <span className="muted">embedded object, as YAML</span>}</div>
    </div>
  );
}
