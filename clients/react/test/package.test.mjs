// The package as npm publishes it: `npm pack` must ship every file its
// "exports" and "types" name, and declare what an app brings as peers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportTargets, packedFiles } from '../../../tests/lib/pack.mjs';

const PKG = fileURLToPath(new URL('..', import.meta.url));

test('npm pack ships every file the exports and types name', async () => {
  const manifest = JSON.parse(readFileSync(path.join(PKG, 'package.json'), 'utf8'));
  const files = await packedFiles(PKG);
  for (const t of exportTargets(manifest)) assert.ok(files.has(t), `${t} is named by package.json but not packed`);
  // What the entry point imports must ship too.
  for (const f of ['src/store.js', 'src/handle.js', 'src/retry.js', 'src/snapshots.js']) assert.ok(files.has(f), `${f} is not packed`);
  assert.ok(files.has('README.md'));
  assert.ok(files.has('LICENSE'), 'the licence ships with the package');
  assert.ok(![...files].some((f) => f.startsWith('typecheck/')), 'the type-check fixture is not published');
  assert.ok(![...files].some((f) => f.startsWith('test/')), 'the tests are not published');
});

test('React, firebase and the client are the app\'s: peers, not dependencies', () => {
  const manifest = JSON.parse(readFileSync(path.join(PKG, 'package.json'), 'utf8'));
  assert.deepEqual(Object.keys(manifest.peerDependencies).sort(), ['@roomlease/client', 'firebase', 'react']);
  assert.equal(manifest.dependencies, undefined);
});
