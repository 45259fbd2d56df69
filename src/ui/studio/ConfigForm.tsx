// The visual form of a configuration document, generated from the model (src/config/model.ts):
// one control per field, nested objects as sections, lists as cards that can be added, removed
// and reordered. Every edit is a path operation on the YAML text, so the editor stays in sync.
// Each field carries `data-path` in the validator's spelling so problems can jump to it.
import { createContext, useContext, type ReactNode } from 'react';
import { TYPE_MODELS, type ConfigKind, type ConfigProblem, type FieldModel, type TypeName } from '../../config/index.js';
import { celPurposeAt, isKeySecret, itemSummary, KEEP_EMPTY, placeholderFor, skeleton, VARIANTS } from './hints.js';
import { providerOfKeyPath } from './keys.js';
import { pathString, type Path } from './paths.js';
import { BoolInput, CelInput, DurationInput, EnumSelect, IntInput, KeyInput, TextInput, UnstructuredInput } from './widgets.js';
import type { EditOp } from './yaml-edit.js';

export interface FormApi {
  edit: (ops: EditOp[]) => void;
  problems: ReadonlyMap<string, ConfigProblem[]>;
  disabled: boolean;
  collapsed: ReadonlySet<string>;
  toggle: (path: string) => void;
}

const FormContext = createContext<FormApi | null>(null);

function useForm(): FormApi {
  const api = useContext(FormContext);
  if (!api) throw new Error('studio form used outside ConfigForm');
  return api;
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const isSetValue = (v: unknown) => v !== undefined && v !== null;
const domId = (path: string) => `sf-${path.replace(/[^\w-]/g, '_')}`;

function Problems({ path }: { path: string }) {
  const { problems } = useForm();
  const list = problems.get(path);
  if (!list) return null;
  return (
    <ul className="sf-problems">
      {list.map((p, i) => (
        <li key={i} className={p.severity}>
          {p.message}
        </li>
      ))}
    </ul>
  );
}

function FieldShell({ path, field, children, actions }: { path: string; field: FieldModel; children: ReactNode; actions?: ReactNode }) {
  const { problems } = useForm();
  const bad = problems.get(path)?.some((p) => p.severity === 'error');
  return (
    <div className={`sf-field${bad ? ' has-error' : ''}`} data-path={path} data-testid={`field-${path}`}>
      <div className="sf-label-row">
        <label className="sf-label" htmlFor={domId(path)} title={field.description}>
          <code>{field.name}</code>
          {field.required && <span className="sf-req" title="required">*</span>}
        </label>
        {actions}
      </div>
      {children}
      <div className="sf-desc muted small">{field.description}</div>
      <Problems path={path} />
    </div>
  );
}

/** Ops for a discriminator change: drop fields it now forbids, add fields it now requires. */
function discriminatorOps(type: TypeName, objPath: Path, obj: Obj, field: string, value: string | undefined): EditOp[] {
  const ops: EditOp[] = [];
  for (const f of TYPE_MODELS[type].fields) {
    const allowed = f.forbiddenUnless?.field === field ? value !== undefined && f.forbiddenUnless.values.includes(value) : true;
    if (!allowed && isSetValue(obj[f.name])) ops.push({ op: 'set', path: [...objPath, f.name], value: undefined });
    const needed = f.requiredWhen?.field === field && value !== undefined && f.requiredWhen.values.includes(value);
    const hasAlias = TYPE_MODELS[type].fields.some((a) => a.aliasOf === f.name && isSetValue(obj[a.name]));
    if (needed && !isSetValue(obj[f.name]) && !hasAlias) {
      const v = f.type.t === 'object' ? skeleton(f.type.ref, [...objPath, f.name]) : '';
      ops.push({ op: 'set', path: [...objPath, f.name], value: v });
    }
  }
  return ops;
}

function ScalarField({ field, path, value, parent, parentType, parentPath }: { field: FieldModel; path: Path; value: unknown; parent: Obj; parentType: TypeName; parentPath: Path }) {
  const { edit, disabled, problems } = useForm();
  const p = pathString(path);
  const id = domId(p);
  const invalid = problems.get(p)?.some((x) => x.severity === 'error');
  const setString = (v: string) => edit([{ op: 'set', path, value: v === '' && !KEEP_EMPTY.has(field.name) && !field.required ? undefined : v }]);
  const t = field.type;
  let control: ReactNode;
  if (t.t === 'string' && t.enum) {
    control = (
      <EnumSelect
        id={id}
        value={value}
        options={t.enum}
        required={!!field.required}
        defaultValue={typeof field.default === 'string' ? field.default : undefined}
        disabled={disabled}
        invalid={invalid}
        onChange={(v) => edit([{ op: 'set', path, value: v }, ...discriminatorOps(parentType, parentPath, parent, field.name, v)])}
      />
    );
  } else if (t.t === 'string' && t.format === 'duration') {
    control = <DurationInput id={id} value={typeof value === 'string' ? value : undefined} disabled={disabled} invalid={invalid} onChange={setString} />;
  } else if (t.t === 'string') {
    const purpose = celPurposeAt(path);
    const text = typeof value === 'string' ? value : value === undefined || value === null ? undefined : String(value);
    if (purpose) control = <CelInput id={id} purpose={purpose} value={text} placeholder={placeholderFor(field, path)} disabled={disabled} invalid={invalid} onChange={setString} />;
    else if (isKeySecret(path)) control = <KeyInput id={id} provider={providerOfKeyPath(path)} value={text} disabled={disabled} invalid={invalid} onChange={setString} />;
    else if (field.name === 'certificateAuthority') {
      control = (
        <textarea id={id} className={`sf-input mono${invalid ? ' invalid' : ''}`} rows={3} value={text ?? ''} placeholder={placeholderFor(field, path)} disabled={disabled} spellCheck={false} onChange={(e) => setString(e.target.value)} />
      );
    } else control = <TextInput id={id} value={text} placeholder={placeholderFor(field, path)} disabled={disabled} invalid={invalid} onChange={setString} />;
  } else if (t.t === 'boolean') {
    control = (
      <BoolInput id={id} value={value} required={!!field.required} defaultValue={typeof field.default === 'boolean' ? field.default : undefined} disabled={disabled} onChange={(v) => edit([{ op: 'set', path, value: v }])} />
    );
  } else if (t.t === 'int32') {
    control = <IntInput id={id} value={value} min={t.minimum} max={t.maximum} disabled={disabled} invalid={invalid} onChange={(v) => edit([{ op: 'set', path, value: v }])} />;
  } else if (t.t === 'unstructured') {
    control = <UnstructuredInput id={id} value={value} disabled={disabled} onChange={(v) => edit([{ op: 'set', path, value: v }])} />;
  }
  return (
    <FieldShell path={p} field={field}>
      {control}
    </FieldShell>
  );
}

function ListButtons({ path, index, length }: { path: Path; index: number; length: number }) {
  const { edit, disabled } = useForm();
  return (
    <span className="sf-item-buttons">
      <button type="button" className="icon-btn small" title="Move up" aria-label="Move up" data-testid="move-up" disabled={disabled || index === 0} onClick={() => edit([{ op: 'move', path, from: index, to: index - 1 }])}>
        ↑
      </button>
      <button type="button" className="icon-btn small" title="Move down" aria-label="Move down" data-testid="move-down" disabled={disabled || index === length - 1} onClick={() => edit([{ op: 'move', path, from: index, to: index + 1 }])}>
        ↓
      </button>
      <button type="button" className="icon-btn small danger" title="Remove" aria-label="Remove" data-testid="remove-item" disabled={disabled} onClick={() => edit([{ op: 'remove', path, index }])}>
        ✕
      </button>
    </span>
  );
}

function StringListField({ field, path, value }: { field: FieldModel; path: Path; value: unknown }) {
  const { edit, disabled } = useForm();
  const items = Array.isArray(value) ? value : [];
  const p = pathString(path);
  return (
    <FieldShell path={p} field={field}>
      <div className="sf-string-list">
        {items.map((item, i) => {
          const ip = pathString([...path, i]);
          return (
            <div key={i} className="sf-row" data-path={ip}>
              <TextInput
                id={domId(ip)}
                value={typeof item === 'string' ? item : String(item ?? '')}
                placeholder={placeholderFor(field, path)}
                disabled={disabled}
                onChange={(v) => edit([{ op: 'set', path: [...path, i], value: v }])}
              />
              <ListButtons path={path} index={i} length={items.length} />
              <Problems path={ip} />
            </div>
          );
        })}
        <button type="button" className="btn small sf-add" data-testid={`add-${p}`} disabled={disabled} onClick={() => edit([{ op: 'insert', path, index: items.length, value: '' }])}>
          + Add {singular(field.name)}
        </button>
      </div>
    </FieldShell>
  );
}

function singular(name: string): string {
  if (name === 'jwt') return 'JWT authenticator';
  if (name === 'resources') return 'resource';
  if (name === 'extra') return 'extra mapping';
  if (name === 'keys') return 'key';
  if (name.endsWith('ies')) return name.slice(0, -3) + 'y';
  if (name.endsWith('s')) return name.slice(0, -1);
  return name;
}

function Collapser({ path }: { path: string }) {
  const { collapsed, toggle } = useForm();
  const closed = collapsed.has(path);
  return (
    <button type="button" className="sf-caret" aria-expanded={!closed} aria-label={closed ? 'Expand' : 'Collapse'} onClick={() => toggle(path)}>
      {closed ? '▸' : '▾'}
    </button>
  );
}

function ObjectListField({ field, type, path, value }: { field: FieldModel; type: TypeName; path: Path; value: unknown }) {
  const { edit, disabled, collapsed } = useForm();
  const items = Array.isArray(value) ? value : [];
  const p = pathString(path);
  return (
    <FieldShell path={p} field={field}>
      <div className="sf-list">
        {items.map((item, i) => {
          const ip = pathString([...path, i]);
          return (
            <section key={i} className="sf-card" data-path={ip} data-testid={`item-${ip}`}>
              <header className="sf-card-head">
                <Collapser path={ip} />
                <span className="sf-card-title">
                  <span className="muted">#{i + 1}</span> {itemSummary(type, item)}
                </span>
                <span className="spacer" />
                <ListButtons path={path} index={i} length={items.length} />
              </header>
              <Problems path={ip} />
              {!collapsed.has(ip) && <TypeFields type={type} path={[...path, i]} value={item} />}
            </section>
          );
        })}
        <button
          type="button"
          className="btn small sf-add"
          data-testid={`add-${p}`}
          disabled={disabled}
          onClick={() => edit([{ op: 'insert', path, index: items.length, value: skeleton(type, [...path, items.length], items) }])}
        >
          + Add {singular(field.name)}
        </button>
      </div>
    </FieldShell>
  );
}

function ObjectField({ field, type, path, value }: { field: FieldModel; type: TypeName; path: Path; value: unknown }) {
  const { edit, disabled, collapsed } = useForm();
  const p = pathString(path);
  const present = isSetValue(value);
  if (!present && !field.required) {
    return (
      <div className="sf-field sf-absent" data-path={p} data-testid={`field-${p}`}>
        <button type="button" className="btn small sf-add" data-testid={`add-${p}`} disabled={disabled} onClick={() => edit([{ op: 'set', path, value: skeleton(type, path) }])}>
          + Add <code>{field.name}</code>
        </button>
        <span className="muted small"> {field.description}</span>
        <Problems path={p} />
      </div>
    );
  }
  return (
    <fieldset className="sf-object" data-path={p} data-testid={`field-${p}`}>
      <legend>
        <Collapser path={p} />
        <code>{field.name}</code>
        {field.required && <span className="sf-req">*</span>}
        {!field.required && (
          <button type="button" className="link small" data-testid={`remove-${p}`} disabled={disabled} onClick={() => edit([{ op: 'set', path, value: undefined }])}>
            remove
          </button>
        )}
      </legend>
      <div className="sf-desc muted small">{field.description}</div>
      <Problems path={p} />
      {!collapsed.has(p) && <TypeFields type={type} path={path} value={value} />}
    </fieldset>
  );
}

/** A union with exactly one member set (ProviderConfiguration): pick the member, then edit it. */
function OneOfFields({ type, path, value }: { type: TypeName; path: Path; value: unknown }) {
  const { edit, disabled } = useForm();
  const model = TYPE_MODELS[type];
  const obj = asObj(value) ?? {};
  const set = model.fields.filter((f) => isSetValue(obj[f.name]));
  const p = pathString(path);
  const current = set[0]?.name ?? '';
  return (
    <div className="sf-oneof">
      <div className="sf-field" data-path={`${p}.type`}>
        <label className="sf-label" htmlFor={domId(`${p}.type`)}>
          provider
        </label>
        <select
          id={domId(`${p}.type`)}
          className="sf-select"
          data-testid={`oneof-${p}`}
          value={set.length === 1 ? current : ''}
          disabled={disabled}
          onChange={(e) => {
            const name = e.target.value;
            const f = model.fields.find((x) => x.name === name);
            if (!f || f.type.t !== 'object') return;
            edit([{ op: 'set', path, value: { [name]: skeleton(f.type.ref, [...path, name]) } }]);
          }}
        >
          {set.length !== 1 && <option value="">{set.length === 0 ? '(choose)' : `(${set.map((f) => f.name).join(' + ')})`}</option>}
          {model.fields.map((f) => (
            <option key={f.name} value={f.name} title={f.description}>
              {f.name}
            </option>
          ))}
        </select>
        <div className="sf-desc muted small">{set.length === 1 ? set[0]!.description : model.description}</div>
      </div>
      {set.map((f) =>
        f.type.t === 'object' ? (
          <div key={f.name} className="sf-nested" data-path={pathString([...path, f.name])}>
            <Problems path={pathString([...path, f.name])} />
            <TypeFields type={f.type.ref} path={[...path, f.name]} value={obj[f.name]} />
          </div>
        ) : null,
      )}
    </div>
  );
}

function VariantSwitch({ type, path, obj }: { type: TypeName; path: Path; obj: Obj }) {
  const { edit, disabled } = useForm();
  const variants = VARIANTS[type]!;
  const active = variants.findIndex((v) => v.fields.some((f) => isSetValue(obj[f])));
  const both = variants.filter((v) => v.fields.some((f) => isSetValue(obj[f]))).length > 1;
  return (
    <div className="sf-variants" role="radiogroup" aria-label="Source">
      {variants.map((v, i) => (
        <label key={v.label} className={`sf-variant${i === active && !both ? ' active' : ''}`}>
          <input
            type="radio"
            name={`variant-${pathString(path)}`}
            checked={i === active && !both}
            disabled={disabled}
            onChange={() => {
              const ops: EditOp[] = [];
              for (const other of variants) if (other !== v) for (const f of other.fields) if (isSetValue(obj[f])) ops.push({ op: 'set', path: [...path, f], value: undefined });
              for (const [k, init] of Object.entries(v.init)) if (!isSetValue(obj[k])) ops.push({ op: 'set', path: [...path, k], value: init });
              edit(ops);
            }}
          />
          {v.label}
        </label>
      ))}
    </div>
  );
}

function visibleFields(type: TypeName, obj: Obj): FieldModel[] {
  const model = TYPE_MODELS[type];
  const variants = VARIANTS[type];
  let allowed: Set<string> | undefined;
  if (variants) {
    const active = variants.filter((v) => v.fields.some((f) => isSetValue(obj[f])));
    // Both sides set (a conflict the problems panel names): show everything so it can be fixed.
    if (active.length === 1) allowed = new Set(active[0]!.fields);
    else if (active.length === 0) allowed = new Set(variants[0]!.fields);
  }
  return model.fields.filter((f) => {
    if (allowed && !allowed.has(f.name) && !isSetValue(obj[f.name])) return false;
    if (f.aliasOf && !isSetValue(obj[f.name])) return false;
    if (f.forbiddenUnless && !isSetValue(obj[f.name])) {
      const v = obj[f.forbiddenUnless.field];
      if (typeof v !== 'string' || !f.forbiddenUnless.values.includes(v)) return false;
    }
    return true;
  });
}

export function TypeFields({ type, path, value }: { type: TypeName; path: Path; value: unknown }) {
  const model = TYPE_MODELS[type];
  if (model.exactlyOne) return <OneOfFields type={type} path={path} value={value} />;
  const obj = asObj(value) ?? {};
  if (model.fields.length === 0) return <div className="muted small sf-empty">No settings.</div>;
  return (
    <div className="sf-fields">
      {VARIANTS[type] && <VariantSwitch type={type} path={path} obj={obj} />}
      {visibleFields(type, obj).map((f) => {
        const fp = [...path, f.name];
        const v = obj[f.name];
        if (f.type.t === 'object') return <ObjectField key={f.name} field={f} type={f.type.ref} path={fp} value={v} />;
        if (f.type.t === 'list') {
          if (f.type.items.t === 'object') return <ObjectListField key={f.name} field={f} type={f.type.items.ref} path={fp} value={v} />;
          return <StringListField key={f.name} field={f} path={fp} value={v} />;
        }
        return <ScalarField key={f.name} field={f} path={fp} value={v} parent={obj} parentType={type} parentPath={path} />;
      })}
    </div>
  );
}

export function ConfigForm({ kind, doc, api }: { kind: ConfigKind; doc: unknown; api: FormApi }) {
  const obj = asObj(doc) ?? {};
  return (
    <FormContext.Provider value={api}>
      <form className="sf" data-testid="studio-form" onSubmit={(e) => e.preventDefault()}>
        <fieldset className="sf-root" disabled={api.disabled}>
          <div className="sf-typemeta muted small" data-path="apiVersion">
            <code>apiVersion: {String(obj.apiVersion ?? '')}</code> · <code data-path="kind">kind: {String(obj.kind ?? '')}</code>
          </div>
          <Problems path="apiVersion" />
          <Problems path="kind" />
          <Problems path="" />
          <TypeFields type={kind} path={[]} value={doc} />
        </fieldset>
      </form>
    </FormContext.Provider>
  );
}
