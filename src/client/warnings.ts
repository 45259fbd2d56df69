// Warning response headers (RFC 7234 form as the API server sends them: `299 - "text"`).

/** Splits a (possibly combined) Warning header value into its texts. */
export function parseWarnings(value: string | null | undefined): string[] {
  if (!value) return [];
  const out: string[] = [];
  const re = /(\d{3})\s+(\S+)\s+"((?:[^"\\]|\\.)*)"(?:\s+"[^"]*")?/g;
  let m: RegExpExecArray | null;
  let found = false;
  while ((m = re.exec(value))) {
    found = true;
    out.push(m[3]!.replace(/\\(.)/g, '$1'));
  }
  if (!found && value.trim()) out.push(value.trim());
  return out;
}
