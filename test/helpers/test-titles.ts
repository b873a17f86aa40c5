import { readFileSync } from 'node:fs';
import ts from 'typescript';

/**
 * The titles a test file declares, read from its syntax tree (never by running it):
 * `it(…)`, `test(…)` and `describe(…)` calls (with `.only`/`.skip`/`.todo`), and the
 * literal values the file holds, which table-driven titles are built from.
 */
export interface TestTitles {
  /** Titles written as one literal string. */
  readonly exact: ReadonlySet<string>;
  /** Titles built from a template: its literal parts, one more than its substitutions. */
  readonly templates: readonly (readonly string[])[];
  /** Every string and number literal of the file: the values a substitution may take. */
  readonly literals: ReadonlySet<string>;
}

const TEST_FUNCTIONS = new Set(['it', 'test', 'describe']);

/** `it`, `it.skip`, `describe.only`…, but not `regex.test` or `t.test`. */
function isTestCall(node: ts.CallExpression): boolean {
  const callee = node.expression;
  if (ts.isIdentifier(callee)) return TEST_FUNCTIONS.has(callee.text);
  return (
    ts.isPropertyAccessExpression(callee) &&
    ts.isIdentifier(callee.expression) &&
    TEST_FUNCTIONS.has(callee.expression.text) &&
    ['only', 'skip', 'todo'].includes(callee.name.text)
  );
}

/** The literal parts of a title expression; an identifier (`it(name, …)`) is one substitution. */
function titleParts(title: ts.Expression): readonly string[] | undefined {
  if (ts.isStringLiteral(title) || ts.isNoSubstitutionTemplateLiteral(title)) return [title.text];
  if (ts.isTemplateExpression(title))
    return [title.head.text, ...title.templateSpans.map((s) => s.literal.text)];
  if (ts.isIdentifier(title) || ts.isPropertyAccessExpression(title)) return ['', ''];
  return undefined;
}

/** Reads the titles and literals of one test file. */
export function readTestTitles(path: string): TestTitles {
  return testTitles(readFileSync(path, 'utf8'));
}

/** The titles and literals of test source text. */
export function testTitles(text: string): TestTitles {
  const source = ts.createSourceFile('test.ts', text, ts.ScriptTarget.Latest, false);
  const exact = new Set<string>();
  const templates: string[][] = [];
  const literals = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) literals.add(node.text);
    if (ts.isNumericLiteral(node)) literals.add(String(Number(node.text)));
    if (ts.isCallExpression(node) && isTestCall(node) && node.arguments[0]) {
      const parts = titleParts(node.arguments[0]);
      if (parts?.length === 1) exact.add(parts[0]!);
      else if (parts) templates.push([...parts]);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { exact, templates, literals };
}

/** A substituted value is a literal of the file, or a string literal of it in JSON quotes. */
function isLiteralValue(value: string, literals: ReadonlySet<string>): boolean {
  if (literals.has(value)) return true;
  if (!(value.length >= 2 && value.startsWith('"') && value.endsWith('"'))) return false;
  try {
    const inner: unknown = JSON.parse(value);
    return typeof inner === 'string' && literals.has(inner);
  } catch {
    return false;
  }
}

/** Whether `name` is the template with each substitution replaced by a literal of the file. */
function matchesTemplate(name: string, parts: readonly string[], literals: ReadonlySet<string>): boolean {
  const [head, ...rest] = parts;
  if (!name.startsWith(head!)) return false;
  const tail = name.slice(head!.length);
  if (rest.length === 0) return tail === '';
  const [next, ...after] = rest;
  for (let end = 0; end <= tail.length; end++) {
    if (!tail.startsWith(next!, end) || !isLiteralValue(tail.slice(0, end), literals)) continue;
    if (matchesTemplate(tail.slice(end), [next!, ...after], literals)) return true;
  }
  return false;
}

/**
 * Whether a file declares a test (or describe) of this exact name: a literal title, or a
 * table-driven template title whose every substitution is a literal row value of the file.
 */
export function declaresTest(titles: TestTitles, name: string): boolean {
  if (titles.exact.has(name)) return true;
  return titles.templates.some((parts) => matchesTemplate(name, parts, titles.literals));
}
