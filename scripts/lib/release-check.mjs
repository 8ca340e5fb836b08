// node scripts/lib/release-check.mjs ROOT VERSION — whether the tree at ROOT
// can be released as server VERSION (scripts/release runs it before it
// tags). Prints every problem, one a line, and exits 1 if there is any;
// otherwise prints the versions to tag and publish as KEY=VALUE lines:
//   SERVER=0.2.0 JS=0.1.0 REACT=0.1.0 GO=0.1.0
// The clients carry versions of their own (docs/releasing.md); what must
// agree is each client's version wherever it is written down.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const SEMVER = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?$/;

/** Whether `version` satisfies a caret range such as ^0.1.0 (npm's rule, without pre-releases). */
export function caretAdmits(range, version) {
  const r = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range || '');
  const v = SEMVER.exec(version);
  if (!r || !v || v[4]) return false;
  const [a, b, c] = r.slice(1, 4).map(Number);
  const [x, y, z] = v.slice(1, 4).map(Number);
  if (a > 0) return x === a && (y > b || (y === b && z >= c));
  if (b > 0) return x === 0 && y === b && z >= c;
  return x === 0 && y === 0 && z === c;
}

/** The problems that keep ROOT from being released as VERSION, and the versions found. */
export function releaseProblems(root, version) {
  const problems = [];
  const read = (rel) => {
    try {
      return readFileSync(path.join(root, rel), 'utf8');
    } catch {
      problems.push(`${rel}: missing`);
      return '';
    }
  };
  const json = (rel) => {
    const text = read(rel);
    try {
      return text ? JSON.parse(text) : {};
    } catch (err) {
      problems.push(`${rel}: ${err.message}`);
      return {};
    }
  };
  if (!SEMVER.test(version || '')) problems.push(`${JSON.stringify(version)} is not a version such as 0.2.0`);

  // The CHANGELOG: a section for this release, and nothing left unreleased.
  const changelog = read('CHANGELOG.md');
  const headings = [...changelog.matchAll(/^## (.+)$/gm)].map((m) => ({ title: m[1].trim(), at: m.index }));
  if (!headings.some((h) => h.title === version || h.title.startsWith(`${version} `))) {
    problems.push(`CHANGELOG.md: no "## ${version}" section: rename "## Unreleased" to it`);
  }
  const unreleased = headings.findIndex((h) => h.title === 'Unreleased');
  if (unreleased >= 0) {
    const end = headings[unreleased + 1]?.at ?? changelog.length;
    const body = changelog.slice(headings[unreleased].at, end).split('\n').slice(1).join('\n').trim();
    if (body !== '') problems.push('CHANGELOG.md: "## Unreleased" still has entries: move them under the release\'s heading');
  }

  // Each client's version, wherever it is written down.
  const js = json('clients/js/package.json');
  const react = json('clients/react/package.json');
  const lock = json('package-lock.json');
  for (const [dir, pkg] of [['clients/js', js], ['clients/react', react]]) {
    if (!SEMVER.test(pkg.version || '')) problems.push(`${dir}/package.json: version ${JSON.stringify(pkg.version)} is not a version`);
    const locked = lock.packages?.[dir]?.version;
    if (locked !== pkg.version) {
      problems.push(`package-lock.json: ${dir} is at ${locked}, its package.json at ${pkg.version}: run npm install`);
    }
    if (pkg.publishConfig?.access !== 'public') problems.push(`${dir}/package.json: publishConfig.access must be "public" (a scoped package is private by default)`);
  }
  const range = react.peerDependencies?.['@roomlease/client'];
  if (!caretAdmits(range, js.version)) {
    problems.push(`clients/react/package.json: its peer range ${range} for @roomlease/client does not admit ${js.version}`);
  }
  const header = /CLIENT_VERSION = '([^']*)'/.exec(read('clients/js/src/api.js'))?.[1];
  if (header !== `js/${js.version}`) {
    problems.push(`clients/js/src/api.js: CLIENT_VERSION is ${header}, want js/${js.version} (its package.json version): the server judges clients by this Roomlease-Client header`);
  }
  const goVersion = /const Version = "([^"]*)"/.exec(read('clients/go/version.go'))?.[1];
  if (!SEMVER.test(goVersion || '')) problems.push(`clients/go/version.go: Version ${goVersion} is not a version`);
  if (!/Roomlease-Client", "go\/"\+Version\)/.test(read('clients/go/client.go'))) {
    problems.push('clients/go/client.go: no longer sends Roomlease-Client go/+Version');
  }
  return { problems, versions: { SERVER: version, JS: js.version, REACT: react.version, GO: goVersion } };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [root, version] = process.argv.slice(2);
  const { problems, versions } = releaseProblems(root, version);
  if (problems.length > 0) {
    for (const p of problems) console.error(`roomlease release: ${p}`);
    process.exit(1);
  }
  for (const [k, v] of Object.entries(versions)) console.log(`${k}=${v}`);
}
