/**
 * The project's references stay inside the repository: code, tests and docs cite the project's
 * docs (docs/*.md, by section) or the RFC, never a document that is not in the repository (the
 * product notes or the customer's interface description, which were cited as "SPEC §" and "seed §").
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

const root = new URL('../../', import.meta.url).pathname;
const self = relative(root, new URL(import.meta.url).pathname);

/** Where the project's own text lives. */
const places = ['src', 'test', 'docs', 'bench', 'scripts', '.ci', 'README.md'];

/** Citations of documents outside the repository: a section of them, the file, or a path to them. */
const outside: readonly RegExp[] = [
  /SPEC §/,
  /seed §/i,
  /SPEC\.md/,
  /(?:^|[\s'"`(=])(?:\.\.\/)+shared\//,
  /\/work\/shared\b/,
  /service-authorization-interface\.md/,
];

function filesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) =>
    name === 'node_modules' || name === 'dist' ? [] : filesUnder(join(path, name)),
  );
}

/** Every line of the project's text that cites something outside the repository, as file:line: text. */
function outsideReferences(): string[] {
  return places
    .flatMap((place) => filesUnder(join(root, place)))
    .map((file) => relative(root, file))
    .filter((file) => file !== self)
    .flatMap((file) => {
      const text = readFileSync(join(root, file), 'utf8');
      if (text.includes('\u0000')) return [];
      return text
        .split('\n')
        .flatMap((line, index) =>
          outside.some((pattern) => pattern.test(line)) ? [`${file}:${index + 1}: ${line.trim()}`] : [],
        );
    });
}

describe('references stay inside the repository', () => {
  it('no file in src, test, docs, bench, scripts, .ci or README.md cites SPEC §, seed §, SPEC.md or ../shared', () => {
    assert.deepEqual(outsideReferences(), []);
  });

  it('the check reads the places it names (a renamed folder cannot make it pass unseen)', () => {
    const files = places.flatMap((place) => filesUnder(join(root, place)));
    for (const place of places) {
      assert.ok(
        files.some((file) => relative(root, file).startsWith(place)),
        `${place} holds no file the check reads`,
      );
    }
  });
});
