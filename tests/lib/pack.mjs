// What `npm pack` would publish for a package folder, and which files its
// package.json promises: the package tests check the one against the other.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Every file path an "exports" map or "types" field names, without "./". */
export function exportTargets(manifest) {
  const out = new Set(manifest.types ? [manifest.types] : []);
  const walk = (v) => {
    if (typeof v === 'string') out.add(v);
    else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(manifest.exports);
  return [...out].map((p) => p.replace(/^\.\//, ''));
}

/** The paths `npm pack` would put in the tarball of the package in `dir`. */
export async function packedFiles(dir) {
  const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--loglevel=error'], { cwd: dir });
  const [packed] = JSON.parse(stdout);
  return new Set(packed.files.map((f) => f.path));
}
