// scripts/release on throwaway repositories: it tags a releasable tree (and
// the Go client's own tag when its version is new), and refuses, tagging
// nothing, a CHANGELOG with unreleased entries, a client whose
// Roomlease-Client header disagrees with its package.json, a dirty tree, a
// version tagged already, and a Go client changed under an old version.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { caretAdmits } from '../../scripts/lib/release-check.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'release test', GIT_AUTHOR_EMAIL: 'release@test.invalid',
  GIT_COMMITTER_NAME: 'release test', GIT_COMMITTER_EMAIL: 'release@test.invalid',
  GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1',
};
const COPIED = ['scripts/release', 'scripts/lib/release-check.mjs', 'clients/js/package.json', 'clients/react/package.json',
  'package-lock.json', 'clients/js/src/api.js', 'clients/go/version.go', 'clients/go/client.go'];

/** A git repository with the files scripts/release reads, released-ready as 0.2.0. */
function fixture(t) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'roomlease-release-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const rel of COPIED) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    cpSync(path.join(ROOT, rel), path.join(dir, rel));
  }
  writeFileSync(path.join(dir, 'CHANGELOG.md'), '# Changelog\n\n## Unreleased\n\n## 0.2.0\n\n- Things.\n\n## 0.1.0\n\n- The first.\n');
  const git = (...args) => execFileSync('git', args, { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-qm', 'fixture');
  const release = (...args) => spawnSync('bash', ['scripts/release', ...args], { cwd: dir, env: GIT_ENV, encoding: 'utf8' });
  const edit = (rel, from, to) => {
    const file = path.join(dir, rel);
    const text = readFileSync(file, 'utf8');
    assert.ok(text.includes(from), `${rel} has no ${from}`);
    writeFileSync(file, text.replace(from, to));
  };
  const tags = () => git('tag', '-l').split('\n').filter(Boolean).sort();
  return { dir, git, release, edit, tags };
}

test('a releasable tree is tagged, with the Go client\'s own tag', (t) => {
  const f = fixture(t);
  const r = f.release('0.2.0');
  assert.equal(r.status, 0, r.stderr);
  const go = /const Version = "([^"]+)"/.exec(readFileSync(path.join(f.dir, 'clients/go/version.go'), 'utf8'))[1];
  assert.deepEqual(f.tags(), [`clients/go/v${go}`, 'v0.2.0'].sort());
  assert.match(r.stdout, /git push origin v0\.2\.0/);

  const again = f.release('0.2.0');
  assert.notEqual(again.status, 0);
  assert.match(again.stderr, /v0\.2\.0 is tagged already/);
});

test('--check tags nothing', (t) => {
  const f = fixture(t);
  const r = f.release('--check', '0.2.0');
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(f.tags(), []);
});

for (const [name, change, want] of [
  ['unreleased entries', ['CHANGELOG.md', '## Unreleased\n', '## Unreleased\n\n- Not yet.\n'], /"## Unreleased" still has entries/],
  ['no section for the version', ['CHANGELOG.md', '## 0.2.0', '## 0.1.9'], /no "## 0\.2\.0" section/],
  ['a header behind its package', ['clients/js/src/api.js', "CLIENT_VERSION = 'js/", "CLIENT_VERSION = 'js/9"], /clients\/js\/src\/api\.js: CLIENT_VERSION is js\/9/],
  ['a lockfile behind its package', ['clients/react/package.json', '"version": "', '"version": "7'], /package-lock\.json: clients\/react is at/],
  ['a peer range that excludes the client', ['clients/react/package.json', '"@roomlease/client": "^', '"@roomlease/client": "^9'], /peer range \^9/],
  ['a private package', ['clients/js/package.json', '"access": "public"', '"access": "restricted"'], /publishConfig\.access/],
]) {
  test(`refuses ${name}, tagging nothing`, (t) => {
    const f = fixture(t);
    f.edit(...change);
    f.git('commit', '-qam', name);
    const r = f.release('0.2.0');
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, want);
    assert.deepEqual(f.tags(), []);
  });
}

test('refuses a dirty tree', (t) => {
  const f = fixture(t);
  writeFileSync(path.join(f.dir, 'CHANGELOG.md'), `${readFileSync(path.join(f.dir, 'CHANGELOG.md'), 'utf8')}\nmore\n`);
  const r = f.release('0.2.0');
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /uncommitted changes/);
  assert.deepEqual(f.tags(), []);
});

test('refuses a Go client changed since its tag under the same version', (t) => {
  const f = fixture(t);
  assert.equal(f.release('0.2.0').status, 0);
  f.edit('CHANGELOG.md', '## 0.2.0', '## 0.2.1\n\n- Go.\n\n## 0.2.0');
  f.edit('clients/go/client.go', 'package client', 'package client // changed');
  f.git('commit', '-qam', 'go changed');
  const r = f.release('0.2.1');
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /clients\/go changed since clients\/go\/v.*: raise Version/);
  assert.ok(!f.tags().includes('v0.2.1'));
});

test('caret ranges as npm reads them', () => {
  assert.ok(caretAdmits('^0.1.0', '0.1.4'));
  assert.ok(!caretAdmits('^0.1.0', '0.2.0'));
  assert.ok(caretAdmits('^1.2.0', '1.9.0'));
  assert.ok(!caretAdmits('^1.2.0', '2.0.0'));
  assert.ok(!caretAdmits('^1.2.3', '1.2.2'));
  assert.ok(!caretAdmits('^0.0.3', '0.0.4'));
});
