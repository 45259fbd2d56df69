// A line diff (longest common subsequence) for short documents such as one object's YAML.
export interface DiffLine {
  op: ' ' | '+' | '-';
  text: string;
}

/** Documents longer than this (in lines, either side) are not diffed line by line. */
export const MAX_DIFF_LINES = 3000;

export function diffLines(before: string, after: string): DiffLine[] | undefined {
  const a = before === '' ? [] : before.replace(/\n$/, '').split('\n');
  const b = after === '' ? [] : after.replace(/\n$/, '').split('\n');
  if (a.length > MAX_DIFF_LINES || b.length > MAX_DIFF_LINES) return undefined;
  // trim the common head and tail: edits are usually small
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const n = x.length;
  const m = y.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const mid: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      mid.push({ op: ' ', text: x[i]! });
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) mid.push({ op: '-', text: x[i++]! });
    else mid.push({ op: '+', text: y[j++]! });
  }
  while (i < n) mid.push({ op: '-', text: x[i++]! });
  while (j < m) mid.push({ op: '+', text: y[j++]! });
  return [...a.slice(0, head).map((t) => ({ op: ' ' as const, text: t })), ...mid, ...a.slice(a.length - tail).map((t) => ({ op: ' ' as const, text: t }))];
}

/** Only the changed lines with `context` unchanged lines around each change. */
export function changedHunks(lines: DiffLine[], context = 2): (DiffLine | 'gap')[] {
  const keep = new Array<boolean>(lines.length).fill(false);
  lines.forEach((l, i) => {
    if (l.op !== ' ') for (let k = Math.max(0, i - context); k <= Math.min(lines.length - 1, i + context); k++) keep[k] = true;
  });
  const out: (DiffLine | 'gap')[] = [];
  lines.forEach((l, i) => {
    if (keep[i]) out.push(l);
    else if (out.length && out[out.length - 1] !== 'gap' && i > 0 && keep[i - 1]) out.push('gap');
  });
  return out;
}
