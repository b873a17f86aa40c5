/** One `file` › "name", "name" citation of a conformance row. */
export interface Citation {
  readonly file: string;
  readonly names: readonly string[];
}

/** One requirement row of test/conformance.md and the tests it cites. */
export interface ConformanceRow {
  /** 1-based line number in conformance.md. */
  readonly line: number;
  readonly requirement: string;
  readonly citations: readonly Citation[];
}

/** Cells of a Markdown table row; `\|` inside a cell is not a separator. */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** A backticked path of a source file: a test file, checked to exist (a bare `x.test.ts` fails). */
const FILE = /`([^`\s]+\.(?:ts|mjs|js))`/g;
const NAME = /"((?:[^"\\]|\\.)*)"/g;

/** The citations of a proof cell: each file, then ` › ` and its quoted test names. */
function citations(proof: string): Citation[] {
  const files = [...proof.matchAll(FILE)];
  return files.map((match, i) => {
    const start = match.index + match[0].length;
    const segment = proof.slice(start, files[i + 1]?.index ?? proof.length);
    const names = /^\s*›/.test(segment)
      ? [...segment.matchAll(NAME)].map((name) => name[1]!.replace(/\\(.)/g, '$1'))
      : [];
    return { file: match[1]!, names };
  });
}

/** The requirement rows of conformance.md: every table row but headers and separators. */
export function parseConformanceMap(markdown: string): ConformanceRow[] {
  const lines = markdown.split('\n');
  const rows: ConformanceRow[] = [];
  lines.forEach((line, i) => {
    if (!line.startsWith('|')) return;
    const isSeparator = /^\|[\s|:-]+\|$/.test(line.trim());
    const isHeader = /^\|[\s|:-]+\|$/.test(lines[i + 1]?.trim() ?? '');
    if (isSeparator || isHeader) return;
    const row = cells(line);
    rows.push({ line: i + 1, requirement: row[0]!, citations: citations(row.at(-1)!) });
  });
  return rows;
}
