/**
 * Lists of words and phrases (moderation word conditions and word keyword lists, the profanity filter's bad
 * words) found in a message in one pass (Aho-Corasick), case-insensitive and as whole words. An alternation of
 * escaped terms in a JavaScript RegExp costs text × terms: 10,000 terms against a 10 KB message froze the process
 * for 20 to 40 seconds; compiled for RE2, the same list took 6 s to compile. Here building is linear in the terms
 * and a search in the text (plus the terms ending at each character, at most the longest term's length).
 */

const WORD = /[\p{L}\p{N}_]/u;

/** Which ends of a match must not touch a word character: both always, or only the ends that are one. */
export type Edges = "always" | "word-ends";

/** The text, lower-cased code unit by code unit (so indexes still match the original). */
function lower(text: string): string {
  const all = text.toLowerCase();
  if (all.length === text.length) return all;
  let out = "";
  for (const unit of text.split("")) {
    const l = unit.toLowerCase();
    out += l.length === 1 ? l : unit;
  }
  return out;
}

/** Whether the code point ending just before `i` (`before`) or starting at `i` is a word character. */
function wordBefore(text: string, i: number): boolean {
  if (i <= 0) return false;
  const start = i >= 2 && /[\uDC00-\uDFFF]/.test(text[i - 1]) && /[\uD800-\uDBFF]/.test(text[i - 2]) ? i - 2 : i - 1;
  return WORD.test(String.fromCodePoint(text.codePointAt(start)!));
}
function wordAt(text: string, i: number): boolean {
  return i < text.length && WORD.test(String.fromCodePoint(text.codePointAt(i)!));
}

export interface WordListOptions {
  edges: Edges;
  /** A run of white space in a term matches any run in the text (moderation phrases). */
  anySpace?: boolean;
}

export class WordList {
  private readonly next: Map<number, number>[] = [new Map()];
  private readonly fail: number[] = [0];
  private readonly depth: number[] = [0];
  /** For a node that ends a term: does the term need a non-word character before it, after it? 0 = not an end. */
  private readonly ends: number[] = [0];
  /** The nearest node on the fail chain that ends a term. */
  private readonly dict: number[] = [0];
  /** For a node that ends a term: the labels of the lists it belongs to (see `labelled`). */
  private readonly labels = new Map<number, number[]>();

  private constructor(private readonly options: WordListOptions) {}

  static of(terms: readonly string[], options: WordListOptions): WordList | undefined {
    const list = new WordList(options);
    let any = false;
    for (const raw of terms) {
      const term = list.normalise(raw.trim());
      if (term.length === 0) continue;
      list.insert(term);
      any = true;
    }
    if (!any) return undefined;
    list.link();
    return list;
  }

  /**
   * Several lists in one automaton, each term with the label of its list: `labelsIn` finds which lists occur in a
   * text in one pass, where a list apiece would take a pass apiece (1,000 moderation rules: 1,000 passes).
   */
  static labelled(lists: readonly { label: number; terms: readonly string[] }[], options: WordListOptions): WordList | undefined {
    const list = new WordList(options);
    let any = false;
    for (const { label, terms } of lists)
      for (const raw of terms) {
        const term = list.normalise(raw.trim());
        if (term.length === 0) continue;
        const node = list.insert(term);
        const labels = list.labels.get(node);
        if (!labels) list.labels.set(node, [label]);
        else if (!labels.includes(label)) labels.push(label);
        any = true;
      }
    if (!any) return undefined;
    list.link();
    return list;
  }

  /** The labels of the lists (see `labelled`) any of whose terms occurs in `text` as a whole word. */
  labelsIn(text: string): Set<number> {
    const found = new Set<number>();
    // A term found once needs no second look: its labels are in.
    const done = new Set<number>();
    this.scan(this.normalise(text), (_start, _end, node) => {
      if (done.has(node)) return;
      done.add(node);
      for (const label of this.labels.get(node) ?? []) found.add(label);
    });
    return found;
  }

  private normalise(text: string): string {
    return lower(this.options.anySpace ? text.replace(/\s+/g, " ") : text);
  }

  private insert(term: string): number {
    let node = 0;
    for (let i = 0; i < term.length; i++) {
      const c = term.charCodeAt(i);
      let child = this.next[node].get(c);
      if (child === undefined) {
        child = this.next.length;
        this.next.push(new Map());
        this.fail.push(0);
        this.depth.push(this.depth[node] + 1);
        this.ends.push(0);
        this.dict.push(0);
        this.next[node].set(c, child);
      }
      node = child;
    }
    const always = this.options.edges === "always";
    const before = always || wordAt(term, 0) ? 1 : 0;
    const after = always || wordBefore(term, term.length) ? 2 : 0;
    this.ends[node] = 4 | before | after;
    return node;
  }

  /** Fail and dictionary links, breadth first. */
  private link(): void {
    const queue: number[] = [...this.next[0].values()];
    for (let q = 0; q < queue.length; q++) {
      const node = queue[q];
      for (const [c, child] of this.next[node]) {
        let f = this.fail[node];
        while (f !== 0 && !this.next[f].has(c)) f = this.fail[f];
        const target = this.next[f].get(c);
        this.fail[child] = target !== undefined && target !== child ? target : 0;
        this.dict[child] = this.ends[this.fail[child]] ? this.fail[child] : this.dict[this.fail[child]];
        queue.push(child);
      }
    }
  }

  /** Calls `found(start, end)` for each whole-word occurrence, by end then longest first; stops when it returns true. */
  private scan(text: string, found: (start: number, end: number, node: number) => boolean | void): void {
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      while (state !== 0 && !this.next[state].has(c)) state = this.fail[state];
      state = this.next[state].get(c) ?? 0;
      for (let o = this.ends[state] ? state : this.dict[state]; o !== 0; o = this.dict[o]) {
        const start = i + 1 - this.depth[o];
        const need = this.ends[o];
        if (need & 1 && wordBefore(text, start)) continue;
        if (need & 2 && wordAt(text, i + 1)) continue;
        if (found(start, i + 1, o) === true) return;
      }
    }
  }

  /** Whether any term occurs in `text` as a whole word. */
  test(text: string): boolean {
    let hit = false;
    this.scan(this.normalise(text), () => (hit = true));
    return hit;
  }

  /** `text` with each occurrence replaced by `mask(it)`: leftmost first, then the longest, never overlapping. */
  mask(text: string, mask: (match: string) => string): string {
    if (this.options.anySpace) throw new Error("WordList.mask needs the text's own spacing");
    const longest = new Map<number, number>();
    this.scan(lower(text), (start, end) => {
      if ((longest.get(start) ?? 0) < end) longest.set(start, end);
    });
    if (longest.size === 0) return text;
    let out = "";
    let from = 0;
    for (const start of [...longest.keys()].sort((a, b) => a - b)) {
      if (start < from) continue;
      out += text.slice(from, start) + mask(text.slice(start, longest.get(start)));
      from = longest.get(start)!;
    }
    return out + text.slice(from);
  }
}
