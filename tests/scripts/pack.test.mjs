// The way an app gets the packages before they are on the npm registry, as
// docs/clients.md ("Installing the packages") tells it: scripts/pack writes
// the two tarballs into the app's folder, and `npm install` of those
// tarballs with firebase and react gives an app whose peers all resolve
// (npm ls passes) to one copy each. And scripts/publish --dry-run: what the
// owner's one command would publish.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const manifest = (rel) => JSON.parse(readFileSync(path.join(ROOT, rel), 'utf8'));
const lock = manifest('package-lock.json');
const js = manifest('clients/js/package.json');
const react = manifest('clients/react/package.json');

test('scripts/pack writes tarballs an app installs with its peers', { timeout: 300_000 }, (t) => {
  const app = mkdtempSync(path.join(os.tmpdir(), 'roomlease-app-'));
  t.after(() => rmSync(app, { recursive: true, force: true }));
  writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));

  const pack = spawnSync('bash', [path.join(ROOT, 'scripts/pack')], { cwd: app, encoding: 'utf8' });
  assert.equal(pack.status, 0, pack.stderr);
  const tarballs = [`roomlease-client-${js.version}.tgz`, `roomlease-react-${react.version}.tgz`];
  assert.deepEqual(readdirSync(app).filter((f) => f.endsWith('.tgz')).sort(), tarballs);
  // The command it prints names the tarballs and the peers' ranges: a bare
  // `firebase` would install a major the packages do not support.
  const printed = pack.stderr.split('\n').find((l) => l.trim().startsWith('npm install'));
  assert.ok(printed, `scripts/pack printed no install command:\n${pack.stderr}`);
  for (const f of tarballs) assert.ok(printed.includes(`./${f}`), `${printed} lacks ./${f}`);
  assert.ok(printed.includes(`firebase@"${js.peerDependencies.firebase}"`), `${printed} lacks firebase's range`);

  // The lockfile's versions of the peers, so that npm finds them in the
  // cache `npm ci` of this repository filled.
  const peers = ['firebase', 'react'].map((p) => `${p}@${lock.packages[`node_modules/${p}`].version}`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', '--loglevel=error',
    ...tarballs.map((f) => `./${f}`), ...peers], { cwd: app, stdio: ['ignore', 'ignore', 'inherit'] });
  const deps = JSON.parse(readFileSync(path.join(app, 'package.json'), 'utf8')).dependencies;
  assert.equal(deps['@roomlease/client'], `file:${tarballs[0]}`);
  assert.equal(deps['@roomlease/react'], `file:${tarballs[1]}`);
  const ls = spawnSync('npm', ['ls', '--all', '--loglevel=error'], { cwd: app, encoding: 'utf8' });
  assert.equal(ls.status, 0, `npm ls finds invalid or missing peers:\n${ls.stdout}${ls.stderr}`);

  // Both packages load, and the bindings see the app's one client and SDK.
  const probe = `
    import { createRoomleaseClient } from '@roomlease/client/node';
    import { RoomleaseProvider } from '@roomlease/react';
    import { createRequire } from 'node:module';
    const from = (p) => createRequire(import.meta.resolve(p)).resolve('firebase/app');
    console.log(JSON.stringify({ client: typeof createRoomleaseClient, provider: typeof RoomleaseProvider,
      sameFirebase: from('@roomlease/client/node') === from('@roomlease/react') }));`;
  const out = JSON.parse(execFileSync('node', ['--input-type=module', '-e', probe], { cwd: app, encoding: 'utf8' }));
  assert.deepEqual(out, { client: 'function', provider: 'function', sameFirebase: true });
});

test('scripts/publish --dry-run would publish both packages, public', { timeout: 120_000 }, () => {
  const r = spawnSync('bash', [path.join(ROOT, 'scripts/publish'), '--dry-run'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`@roomlease/client@${js.version} would be published`));
  assert.match(r.stdout, new RegExp(`@roomlease/react@${react.version} would be published`));
});
