// Every problem of the document (YAML syntax, duplicate keys, validation), each a button that
// jumps to its field in the form and its line in the YAML.
import type { ConfigProblem } from '../../config/index.js';

export function ProblemsPanel({ problems, onSelect }: { problems: readonly ConfigProblem[]; onSelect: (p: ConfigProblem) => void }) {
  const errors = problems.filter((p) => p.severity === 'error').length;
  const warnings = problems.length - errors;
  return (
    <section className="studio-problems" data-testid="problems-panel" aria-label="Problems">
      <header>
        <strong>Problems</strong>{' '}
        <span className="muted small" data-testid="problem-counts">
          {errors} {errors === 1 ? 'error' : 'errors'}, {warnings} {warnings === 1 ? 'warning' : 'warnings'}
        </span>
      </header>
      {problems.length === 0 ? (
        <div className="studio-problems-empty ok" data-testid="no-problems">
          ✓ No problems: the server would accept this document.
        </div>
      ) : (
        <ul>
          {problems.map((p, i) => (
            <li key={`${p.path}:${p.message}:${i}`}>
              <button type="button" className={`studio-problem ${p.severity}`} data-testid="problem" data-path={p.path} data-severity={p.severity} onClick={() => onSelect(p)}>
                <span className="sev" aria-label={p.severity}>
                  {p.severity === 'error' ? '✗' : '⚠'}
                </span>
                <code className="path">{p.path || '(document)'}</code>
                <span className="msg">{p.message}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
