// Jump to any resource type by name, short name, kind or group (`deploy`, `po`, `ct`), or to an object (`deploy/web`).
import { forwardRef, useMemo, useState, type KeyboardEvent } from 'react';
import { suggestResources, type ApiResource, type Discovery } from '../../client/index.js';
import { isAliasGroup } from '../data/discovery.js';
import { href, listPath, navigate, objectPath } from '../router.js';

interface Props {
  discovery: Discovery | undefined;
  namespace: string;
}

export const JumpBox = forwardRef<HTMLInputElement, Props>(function JumpBox({ discovery, namespace }, ref) {
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const [typePart, namePart] = text.split('/', 2) as [string, string | undefined];
  const suggestions = useMemo(() => {
    if (!discovery) return [];
    const browsable: Discovery = { ...discovery, resources: discovery.resources.filter((r) => !isAliasGroup(discovery, r.group)) };
    return suggestResources(browsable, typePart, 10);
  }, [discovery, typePart]);

  const go = (r: ApiResource | undefined) => {
    if (!r) return;
    const ns = r.namespaced ? namespace : undefined;
    if (namePart) navigate(href(objectPath(r, r.namespaced ? namespace || 'default' : undefined, namePart), { ns }));
    else navigate(href(listPath(r), { ns }));
    setText('');
    setOpen(false);
    (document.activeElement as HTMLElement | null)?.blur();
  };

  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown') {
      setActive((a) => Math.min(a + 1, suggestions.length - 1));
      e.preventDefault();
    } else if (e.key === 'ArrowUp') {
      setActive((a) => Math.max(a - 1, 0));
      e.preventDefault();
    } else if (e.key === 'Enter') {
      go(suggestions[active]);
      e.preventDefault();
    } else if (e.key === 'Escape') {
      setOpen(false);
      e.currentTarget.blur();
    }
  };

  return (
    <div className="jump" role="combobox" aria-expanded={open && suggestions.length > 0} aria-haspopup="listbox">
      <input
        ref={ref}
        type="search"
        data-testid="jump"
        placeholder="Jump to a type… ( : )"
        aria-label="Jump to a resource type"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setActive(0);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={onKey}
      />
      {open && text.trim() && suggestions.length > 0 && (
        <ul className="jump-list" role="listbox" data-testid="jump-suggestions">
          {suggestions.map((r, i) => (
            <li
              key={`${r.group}/${r.resource}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? 'active' : ''}
              onMouseDown={(e) => {
                e.preventDefault();
                go(r);
              }}
              onMouseEnter={() => setActive(i)}
            >
              <span className="jump-name">{r.resource}</span>
              <span className="muted small">
                {' '}
                {r.kind} · {r.group || 'core'}/{r.version}
                {r.shortNames.length ? ` · ${r.shortNames.join(', ')}` : ''}
                {namePart ? ` → ${namePart}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
});
