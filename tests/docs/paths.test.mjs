// Every path a Markdown file of this repository names in backticks exists,
// so that docs do not send readers to files that were moved, renamed or
// never committed. What counts as a path (docPaths):
//   - an inline code span outside fenced blocks, one token with no spaces,
//     no URL, no placeholder ({roomId}, <commit>, X.Y.Z, …, *, $VAR);
//   - with a slash, whose first part is an entry of the repository's root
//     or of the doc's folder (so `functions/memo`, `src/room.js` in
//     clients/js/README.md; not `firebase/app`, `rooms/...` or
//     `@roomlease/react`, which are module names and Firestore paths);
//     it must exist relative to the root or to the doc's folder;
//   - without a slash, a file name with a known extension (`room.js`,
//     `go.mod`): some tracked file must have that name, or that name
//     followed by .example (`terraform.tfvars`, which the user makes).
// Placeholders (NAME.json, PREFIX, …) and relative paths that leave the
// repository (`../roomlease/scripts/pack`, a checkout beside an app) are
// not checked.
// Paths git ignores (node_modules/, web/dist/, a user's terraform.tfvars)
// are made by the scripts or by the user, and count as existing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXTENSIONS = /\.(go|mod|sum|md|js|mjs|cjs|jsx|ts|tsx|json|tf|hcl|tfvars|rules|sh|svg|png|txt|log|html|css|yaml|yml|example|jar)$/;
const PLACEHOLDER = /[\s{}<>*…$=?#|()\[\]'",;:]|\.\.\.|X\.Y\.Z|^-|:\/\/|\b(NAME|PREFIX|OWNER|COMMIT|VERSION|PROJECT)\b/;

const git = (...args) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' });
const tracked = git('ls-files', '-z').split('\0').filter(Boolean)
  .filter((f) => existsSync(path.join(ROOT, f)));
const trackedNames = new Set(tracked.map((f) => path.basename(f)));

/** The inline code spans of a Markdown text, with their line numbers, outside fenced blocks. */
export function codeSpans(markdown) {
  const spans = [];
  let fenced = false;
  markdown.split('\n').forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    for (const m of line.matchAll(/(`+)([^`]+?)\1(?!`)/g)) spans.push({ text: m[2].trim(), line: i + 1 });
  });
  return spans;
}

/** The spans of `doc` (a path relative to root) that name a path, and whether each exists. */
export function docPaths(root, doc, markdown, isIgnored) {
  const dir = path.dirname(doc);
  const out = [];
  for (const { text, line } of codeSpans(markdown)) {
    const token = text.replace(/[.,]$/, '').replace(/:\d+(-\d+)?$/, '');
    if (token === '' || PLACEHOLDER.test(token) || token.startsWith('@') || token.startsWith('/')) continue;
    let candidates;
    if (token.includes('/')) {
      const first = token.replace(/^(\.\.?\/)+/, '').split('/')[0];
      const relative = token.startsWith('./') || token.startsWith('../');
      // Outside the repository (a checkout beside the app): not ours to check.
      if (relative && path.relative(root, path.join(root, dir, token)).startsWith('..')) continue;
      const inRoot = existsSync(path.join(root, first));
      const inDir = existsSync(path.join(root, dir, first));
      if (!relative && !inRoot && !inDir) continue;
      candidates = relative ? [path.join(dir, token)] : [token, path.join(dir, token)];
    } else if (EXTENSIONS.test(token) && !/^\.\w+$/.test(token)) {
      // A file the user makes from a tracked example (terraform.tfvars
      // from terraform.tfvars.example) counts as named truthfully.
      const exists = trackedNames.has(token) || trackedNames.has(`${token}.example`)
        || existsSync(path.join(root, dir, token)) || isIgnored(path.join(dir, token));
      out.push({ doc, line, token, exists });
      continue;
    } else {
      continue;
    }
    const exists = candidates.some((c) => existsSync(path.join(root, c)) || isIgnored(c));
    out.push({ doc, line, token, exists });
  }
  return out;
}

function ignoredByGit(rel) {
  try {
    execFileSync('git', ['check-ignore', '-q', '--no-index', rel], { cwd: ROOT, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

test('every path the docs name in backticks exists', () => {
  const docs = tracked.filter((f) => f.endsWith('.md') && !f.startsWith('node_modules/'));
  assert.ok(docs.length > 10, `found only ${docs.length} Markdown files`);
  const missing = [];
  let checked = 0;
  for (const doc of docs) {
    for (const p of docPaths(ROOT, doc, readFileSync(path.join(ROOT, doc), 'utf8'), ignoredByGit)) {
      checked++;
      if (!p.exists) missing.push(`${p.doc}:${p.line}: \`${p.token}\``);
    }
  }
  assert.ok(checked > 100, `only ${checked} paths checked: the rules above have stopped matching`);
  assert.deepEqual(missing, [], `paths named in docs that do not exist:\n${missing.join('\n')}`);
});

test('what counts as a path', () => {
  const md = [
    'See `functions/memo` and `bench/results/gone.log`, `firebase/app`, `rooms/{roomId}`,',
    '`@roomlease/react`, `https://x.example/a`, `room.js`, `nothere.go`, `GET /v1/config`,',
    '```sh', 'cat `functions/nope`', '```', '`docs/api.md:12`, `git::https://github.com/OWNER/roomlease.git//terraform?ref=COMMIT`.',
  ].join('\n');
  const got = docPaths(ROOT, 'README.md', md, () => false).map((p) => [p.token, p.exists]);
  assert.deepEqual(got, [
    ['functions/memo', true], ['bench/results/gone.log', false], ['room.js', true], ['nothere.go', false], ['docs/api.md', true],
  ]);
});
