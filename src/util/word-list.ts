/**
 * Lists of words and phrases (moderation word conditions and word keyword lists, the profanity filter's bad
 * words) found in a message in one pass (Aho-Corasick), case-insensitive and as whole words. An alternation of
 * escaped terms in a JavaScript RegExp costs text × terms: 10,000 terms against a 10 KB message froze the process
 * for 20 to 40 seconds; compiled for RE2, the same list took 6 s to compile. Here building is linear in the terms
 * and a search in the text (plus the terms ending at each character, at most the longest term's length). The trie
 * lives in typed arrays sized once for the terms: building allocates no object per node.
 */

const WORD = /[\p{L}\p{N}_]/u;

/**
 * The characters of word terms one app's enabled moderation rules may use together (budget.ts): the automaton is
 * built on the first send after a change, in one turn, in time linear in them (100,000 characters: 20 to 50 ms on a
 * busy machine; see `npm run bench:regex`). Ten thousand words of ten characters fit.
 */
export const MAX_SCREENING_WORDS = 100_000;

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

/** A term or a text as the automaton reads it: lower-cased, and white space runs as one space with `anySpace`. */
function normalise(text: string, options: WordListOptions): string {
  return lower(options.anySpace ? text.replace(/\s+/g, " ") : text);
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

/**
 * A trie's edges, node × code unit → child, in one open-addressing table of typed arrays: a Map per node (or one
 * Map keyed by number) cost about a microsecond per character of terms to build, this a tenth of it.
 */
class EdgeTable {
  private readonly nodes: Int32Array;
  private readonly units: Uint16Array;
  private readonly children: Int32Array;
  private readonly mask: number;

  /** Room for `edges` edges, at most half full (a trie has one edge per node but the root). */
  constructor(edges: number) {
    let size = 16;
    while (size < edges * 2) size *= 2;
    this.nodes = new Int32Array(size).fill(-1);
    this.units = new Uint16Array(size);
    this.children = new Int32Array(size);
    this.mask = size - 1;
  }

  private slot(node: number, c: number): number {
    let i = (Math.imul(node, 0x9e3779b1) ^ Math.imul(c, 0x85ebca6b)) & this.mask;
    while (this.nodes[i] !== -1 && (this.nodes[i] !== node || this.units[i] !== c)) i = (i + 1) & this.mask;
    return i;
  }

  get(node: number, c: number): number | undefined {
    const i = this.slot(node, c);
    return this.nodes[i] === -1 ? undefined : this.children[i];
  }

  set(node: number, c: number, child: number): void {
    const i = this.slot(node, c);
    this.nodes[i] = node;
    this.units[i] = c;
    this.children[i] = child;
  }
}

export class WordList {
  /** Sized once for the terms' characters (a node per character at most, and the root): nothing grows while building. */
  private readonly next: EdgeTable;
  /** Each node's children, for the breadth-first walk that links them: its first child, then each child's sibling. */
  private readonly firstChild: Int32Array;
  private readonly sibling: Int32Array;
  /** The code unit on the edge into each node. */
  private readonly unit: Uint16Array;
  private readonly fail: Int32Array;
  private readonly depth: Int32Array;
  /** For a node that ends a term: does the term need a non-word character before it, after it? 0 = not an end. */
  private readonly ends: Uint8Array;
  /** The nearest node on the fail chain that ends a term. */
  private readonly dict: Int32Array;
  private nodes = 1;
  /** For a node that ends a term: the labels of the lists it belongs to (see `labelled`). */
  private readonly labels = new Map<number, number[]>();

  private constructor(
    private readonly options: WordListOptions,
    chars: number,
  ) {
    const size = chars + 1;
    this.next = new EdgeTable(size);
    this.firstChild = new Int32Array(size);
    this.sibling = new Int32Array(size);
    this.unit = new Uint16Array(size);
    this.fail = new Int32Array(size);
    this.depth = new Int32Array(size);
    this.ends = new Uint8Array(size);
    this.dict = new Int32Array(size);
  }

  static of(terms: readonly string[], options: WordListOptions): WordList | undefined {
    return WordList.labelled([{ label: 0, terms }], options);
  }

  /**
   * Several lists in one automaton, each term with the label of its list: `labelsIn` finds which lists occur in a
   * text in one pass, where a list apiece would take a pass apiece (1,000 moderation rules: 1,000 passes).
   */
  static labelled(lists: readonly { label: number; terms: readonly string[] }[], options: WordListOptions): WordList | undefined {
    const normal: { label: number; term: string }[] = [];
    let chars = 0;
    for (const { label, terms } of lists)
      for (const raw of terms) {
        const term = normalise(raw.trim(), options);
        if (term.length === 0) continue;
        normal.push({ label, term });
        chars += term.length;
      }
    if (normal.length === 0) return undefined;
    const list = new WordList(options, chars);
    for (const { label, term } of normal) {
      const node = list.insert(term);
      const labels = list.labels.get(node);
      if (!labels) list.labels.set(node, [label]);
      else if (!labels.includes(label)) labels.push(label);
    }
    list.link();
    return list;
  }

  /** The labels of the lists (see `labelled`) any of whose terms occurs in `text` as a whole word. */
  labelsIn(text: string): Set<number> {
    const found = new Set<number>();
    // A term found once needs no second look: its labels are in.
    const done = new Set<number>();
    this.scan(normalise(text, this.options), (_start, _end, node) => {
      if (done.has(node)) return;
      done.add(node);
      for (const label of this.labels.get(node) ?? []) found.add(label);
    });
    return found;
  }


  private insert(term: string): number {
    let node = 0;
    for (let i = 0; i < term.length; i++) {
      const c = term.charCodeAt(i);
      let child = this.next.get(node, c);
      if (child === undefined) {
        child = this.nodes++;
        this.next.set(node, c, child);
        this.sibling[child] = this.firstChild[node];
        this.firstChild[node] = child;
        this.unit[child] = c;
        this.depth[child] = this.depth[node] + 1;
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
    const queue = new Int32Array(this.nodes);
    let tail = 0;
    for (let child = this.firstChild[0]; child !== 0; child = this.sibling[child]) queue[tail++] = child;
    for (let q = 0; q < tail; q++) {
      const node = queue[q];
      for (let child = this.firstChild[node]; child !== 0; child = this.sibling[child]) {
        const c = this.unit[child];
        let f = this.fail[node];
        let target = this.next.get(f, c);
        while (target === undefined && f !== 0) {
          f = this.fail[f];
          target = this.next.get(f, c);
        }
        this.fail[child] = target !== undefined && target !== child ? target : 0;
        this.dict[child] = this.ends[this.fail[child]] ? this.fail[child] : this.dict[this.fail[child]];
        queue[tail++] = child;
      }
    }
  }

  /** Calls `found(start, end)` for each whole-word occurrence, by end then longest first; stops when it returns true. */
  private scan(text: string, found: (start: number, end: number, node: number) => boolean | void): void {
    let state = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      let to = this.next.get(state, c);
      while (to === undefined && state !== 0) {
        state = this.fail[state];
        to = this.next.get(state, c);
      }
      state = to ?? 0;
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
    this.scan(normalise(text, this.options), () => (hit = true));
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
