/**
 * CSV text as RFC 4180 writes it: fields separated by commas, quoted with `"` when they hold commas, quotes or line
 * breaks (`""` for a quote inside), lines ended by LF or CRLF. One pass, no backtracking.
 */
export function parseCsv(text: string, maxRows: number): { rows: string[][]; truncated: boolean } {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const endRow = () => {
    row.push(field);
    field = "";
    if (!(row.length === 1 && row[0] === "")) rows.push(row);
    row = [];
  };
  for (; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch !== '"') field += ch;
      else if (text[i + 1] === '"') [field, i] = [field + '"', i + 1];
      else quoted = false;
    } else if (ch === '"' && field === "") quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    }
    else if (ch === "\n") {
      endRow();
      if (rows.length > maxRows) return { rows: rows.slice(0, maxRows), truncated: true };
    } else if (ch !== "\r" || text[i + 1] !== "\n") field += ch;
  }
  if (field !== "" || row.length > 0) endRow();
  return { rows: rows.slice(0, maxRows), truncated: rows.length > maxRows };
}
