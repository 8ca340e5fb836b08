// The package as npm publishes it: `npm pack` must ship every file the
// package's "exports" and "types" point at, and the README's Node example
// must run as written against the running stack (only the addresses and
// its 10 s wait are adapted).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadConfig } from './helpers.mjs';
import { exportTargets, packedFiles } from '../../../tests/lib/pack.mjs';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PKG = path.join(ROOT, 'clients/js');

test('npm pack ships every file the exports and types name', async () => {
  const manifest = JSON.parse(readFileSync(path.join(PKG, 'package.json'), 'utf8'));
  const files = await packedFiles(PKG);
  for (const t of exportTargets(manifest)) assert.ok(files.has(t), `${t} is named by package.json but not packed`);
  assert.ok(files.has('README.md'));
  assert.equal(manifest.peerDependencies.firebase, '^12.0.0');
  // The React Native adapter uses NetInfo when the app has it; nobody else
  // should be asked to install it.
  assert.deepEqual(manifest.peerDependenciesMeta?.['@react-native-community/netinfo'], { optional: true });
  assert.ok(![...files].some((f) => f.startsWith('typecheck/')), 'the type-check fixture is not published');
  assert.ok(![...files].some((f) => f.startsWith('test/')), 'the tests are not published');
  assert.ok(files.has('LICENSE'), 'the licence ships with the package');
});

test("the README's Node example runs against the stack", { timeout: 90_000 }, async () => {
  const config = await loadConfig();
  const readme = readFileSync(path.join(PKG, 'README.md'), 'utf8');
  const m = readme.match(/## Node\n\n```js\n([\s\S]*?)```/);
  assert.ok(m, 'README.md has no Node example');
  const auth = new URL(config.authEmulatorUrl);
  const code = m[1]
    .replace("'http://127.0.0.1:9099'", JSON.stringify(`http://${auth.host}`))
    .replace("host: '127.0.0.1', port: 8080", `host: ${JSON.stringify(config.firestoreEmulatorHost)}, port: ${Number(config.firestoreEmulatorPort)}`)
    .replace("'http://127.0.0.1:8081'", JSON.stringify(config.apiUrl))
    .replace("projectId: 'demo-roomlease'", `projectId: ${JSON.stringify(config.projectId)}`)
    .replace('setTimeout(r, 10_000)', 'setTimeout(r, 2_000)');
  for (const original of ['127.0.0.1:9099', "host: '127.0.0.1', port: 8080", '127.0.0.1:8081', '10_000']) {
    assert.ok(!code.includes(original), `the example changed: ${original} was not adapted`);
  }
  // Inside the repository, so '@roomlease/client' and 'firebase' resolve
  // from its node_modules, as they would from an app's.
  mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
  const dir = mkdtempSync(path.join(ROOT, '.tmp', 'readme-'));
  try {
    const file = path.join(dir, 'example.mjs');
    writeFileSync(file, code);
    const { stdout } = await run(process.execPath, [file], { timeout: 60_000 });
    assert.match(stdout, /revision \d+: Ada \(bot\)/, `output: ${stdout}`);
    assert.ok(stdout.includes(`listening to Firestore database ${config.database}\n`), `output: ${stdout}`);
    assert.match(stdout, /\{ removed: true \}/, `output: ${stdout}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
