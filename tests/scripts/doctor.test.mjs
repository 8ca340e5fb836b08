// scripts/doctor with one prerequisite hidden: the PATH is a folder of links
// to every command on the real PATH but that one (Chromium, which the
// browser tests find by path, is hidden through CHROMIUM). The doctor must
// fail, name the missing tool, and say how to install it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { accessSync, constants, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCTOR = path.join(ROOT, 'scripts/doctor');

/** A PATH folder with every command of the real PATH except `hidden`. */
function pathWithout(t, hidden) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roomlease-doctor-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const seen = new Set(hidden);
  for (const folder of (process.env.PATH || '').split(':').filter(Boolean)) {
    let names = [];
    try {
      names = readdirSync(folder);
    } catch {
      continue;
    }
    for (const name of names) {
      if (seen.has(name)) continue;
      const target = path.join(folder, name);
      try {
        accessSync(target, constants.X_OK);
      } catch {
        continue;
      }
      seen.add(name);
      symlinkSync(target, path.join(dir, name));
    }
  }
  return dir;
}

function doctor(env) {
  return spawnSync('bash', [DOCTOR], { encoding: 'utf8', env: { ...process.env, ...env } });
}

for (const [tool, hidden, missing, install] of [
  ['gcc', ['gcc', 'cc'], /MISSING {2}gcc: go test -race needs a C compiler/, /apt-get install -y gcc|install gcc/],
  ['terraform', ['terraform'], /MISSING {2}Terraform 1\.7\+: scripts\/check-terraform skips without it/, /developer\.hashicorp\.com\/terraform\/install/],
  ['java', ['java'], /MISSING {2}Java 17\+: the Firestore and Pub\/Sub emulators are Java programs/, /openjdk-17-jre-headless|adoptium/],
  ['gcloud', ['gcloud'], /MISSING {2}the Pub\/Sub emulator: scripts\/test starts it/, /google-cloud-cli-pubsub-emulator/],
  ['curl', ['curl'], /MISSING {2}curl:/, /apt-get install -y curl|install curl/],
]) {
  test(`names a missing ${tool} and how to install it`, { timeout: 60_000 }, (t) => {
    const r = doctor({ PATH: pathWithout(t, hidden) });
    assert.equal(r.status, 1, `doctor passed without ${tool}:\n${r.stdout}${r.stderr}`);
    assert.match(r.stdout, missing);
    // The install advice sits on the lines right under the MISSING line.
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => missing.test(l));
    const rest = lines.slice(at + 1);
    const advice = rest.slice(0, rest.findIndex((l) => !l.startsWith(' '.repeat(11)))).join('\n');
    assert.match(advice, install, `no install command under\n${lines[at]}`);
  });
}

test('names a missing Chromium and how to install it', { timeout: 60_000 }, () => {
  const r = doctor({ CHROMIUM: path.join(os.tmpdir(), 'no-such-chromium') });
  assert.equal(r.status, 1, r.stdout);
  assert.match(r.stdout, /MISSING {2}Chromium: the browser tests drive it[^\n]*\n {11}(\S*apt-get install -y chromium|install Chromium)/);
});
