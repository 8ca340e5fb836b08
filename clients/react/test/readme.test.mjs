// The top README's React quick start must compile against the packages'
// declarations as written: extracted and checked with the repo's tsc. (It
// names everything it uses; tests/e2e/quickstart.test.mjs runs it.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

test("the README's React quick start type-checks", { timeout: 120_000 }, async () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const m = readme.match(/## Quick start \(web\)\n[\s\S]*?```jsx\n([\s\S]*?)```/);
  assert.ok(m, 'README.md has no jsx block in its quick start');
  // 25: the 20 of the first version, and the five that connect the
  // emulators when the server says it runs on them.
  assert.ok(m[1].split('\n').length - 1 <= 25, 'the quick start is at most 25 lines');
  mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
  const dir = mkdtempSync(path.join(ROOT, '.tmp', 'quickstart-'));
  try {
    // A module, so that its top-level await is allowed.
    writeFileSync(path.join(dir, 'package.json'), '{"type": "module"}\n');
    writeFileSync(path.join(dir, 'quickstart.tsx'), m[1]);
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022',
        lib: ['es2022', 'dom'], jsx: 'react-jsx', types: [], skipLibCheck: true,
        // The README is JavaScript: its parameters have no annotations.
        noImplicitAny: false,
      },
      files: ['quickstart.tsx', path.join(ROOT, 'clients/js/typecheck/temporal.d.ts')],
    }));
    try {
      await run(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', path.join(dir, 'tsconfig.json')]);
    } catch (err) {
      assert.fail(`the quick start does not compile:\n${err.stdout}${err.stderr}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
