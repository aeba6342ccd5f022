/**
 * Globs over API paths ("/v3/messages*", "/v3/users/?/auth_tokens"): `*` matches any run of characters, slashes
 * included; `?` matches one character. Case-insensitive, like the platform's ids.
 *
 * Matched without a regular expression: `*` compiled to `.*` backtracks, and a pattern such as `/*a*a*a*a*b`
 * against a long path blocks the event loop for minutes (two `<img>` tags on any web page can send one). Here the
 * pattern is split at its stars and each piece is found at its earliest place after the previous one; for star
 * globs the earliest place is always a right choice, so nothing is ever retried: one pass over the path
 * (pieces with `?` compare at most piece × path characters).
 */
export type Glob = (path: string) => boolean;

export function compileGlob(glob: string): Glob {
  const pieces = glob.toLowerCase().split("*");
  const [first, ...rest] = pieces;
  if (rest.length === 0) return (path) => path.length === first.length && at(path.toLowerCase(), first, 0);
  const last = rest.pop()!;
  const middle = rest.filter((piece) => piece !== "");
  return (raw) => {
    const path = raw.toLowerCase();
    const end = path.length - last.length;
    if (end < first.length || !at(path, first, 0) || !at(path, last, end)) return false;
    let from = first.length;
    for (const piece of middle) {
      const found = find(path, piece, from, end);
      if (found === -1) return false;
      from = found + piece.length;
    }
    return true;
  };
}

/** Whether `piece` (where `?` is any character) matches `text` at `start`. */
function at(text: string, piece: string, start: number): boolean {
  for (let i = 0; i < piece.length; i++) if (piece[i] !== "?" && piece[i] !== text[start + i]) return false;
  return true;
}

/** The first place at or after `from` where `piece` matches and ends by `end`, or -1. */
function find(text: string, piece: string, from: number, end: number): number {
  if (!piece.includes("?")) {
    const i = text.indexOf(piece, from);
    return i !== -1 && i + piece.length <= end ? i : -1;
  }
  for (let i = from; i + piece.length <= end; i++) if (at(text, piece, i)) return i;
  return -1;
}
