// The package's declarations (types/index.d.ts) are written by hand, so they
// are checked against the server rather than trusted: ServerConfig against
// the running server's GET /v1/config reply, whatever fields it sends, and
// RoomleaseErrorCode against the server's one error table
// (httpapi.ErrorStatuses, printed by a throwaway Go program). Both become a
// TypeScript file compiled with the repo's tsc, so a field or code the
// declarations lack is a type error that names it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadConfig } from './helpers.mjs';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Codes the client makes up itself (status 0): no server sends them. */
const CLIENT_CODES = ['network', 'timeout', 'wrong_database'];

/** The server's error table, code → status, from the Go source itself. */
async function serverErrorTable(dir) {
  // Inside the module (a dot directory, which ./... patterns skip), so
  // that it imports the server's package as any of its tests would.
  const main = path.join(dir, 'errortable', 'main.go');
  mkdirSync(path.dirname(main), { recursive: true });
  writeFileSync(main, `package main

import (
\t"encoding/json"
\t"os"

\t"github.com/roomlease/roomlease/functions/httpapi"
)

func main() { _ = json.NewEncoder(os.Stdout).Encode(httpapi.ErrorStatuses()) }
`);
  const { stdout } = await run('go', ['run', main], { cwd: ROOT, timeout: 300_000 });
  return JSON.parse(stdout);
}

/**
 * A TypeScript module that type-checks only if the declarations know every
 * field of `reply` (an object literal typed ServerConfig: an unknown
 * property is an error, and so is a declared one the reply lacks) and every
 * code in `codes`, and name no code that is in neither `codes` nor the
 * client's own.
 */
function checkSource(reply, codes) {
  const list = (xs) => xs.map((x) => JSON.stringify(x)).join(', ');
  return `import type { RoomleaseErrorCode, ServerConfig } from '@roomlease/client';

// The named codes, without the open-ended (string & {}).
type Named<U> = U extends unknown ? (string extends U ? never : U) : never;
type DeclaredCode = Named<RoomleaseErrorCode>;

export const reply: ServerConfig = ${JSON.stringify(reply, null, 2)};

// Every code the server sends is declared…
export const sent = [${list(codes)}] as const satisfies readonly DeclaredCode[];
const clientCodes = [${list(CLIENT_CODES)}] as const satisfies readonly DeclaredCode[];
// …and every declared code is the server's or the client's own.
type Unknown = Exclude<DeclaredCode, (typeof sent)[number] | (typeof clientCodes)[number]>;
export const declaredButNeverSent: Record<Unknown, never> = {};
void clientCodes;
`;
}

test('the declarations name every GET /v1/config field and every error code the server sends', { timeout: 300_000 }, async () => {
  const config = await loadConfig();
  const r = await fetch(`${config.apiUrl}/v1/config`);
  assert.equal(r.status, 200);
  const reply = await r.json();
  assert.ok(Object.keys(reply).length > 0, 'the config reply is empty');
  mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
  const dir = mkdtempSync(path.join(ROOT, '.tmp', 'declarations-'));
  try {
    const table = await serverErrorTable(dir);
    const codes = Object.keys(table).sort();
    assert.ok(codes.length > 0, 'the server\'s error table is empty');
    writeFileSync(path.join(dir, 'package.json'), '{"type": "module"}\n');
    writeFileSync(path.join(dir, 'server.ts'), checkSource(reply, codes));
    // The check itself, shown to fail: a field and a code the declarations
    // cannot know must each be an error that names them, in this file only.
    writeFileSync(path.join(dir, 'broken.ts'), checkSource({ ...reply, notDeclaredSeconds: 1 }, [...codes, 'not_declared']));
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        strict: true, noEmit: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022',
        lib: ['es2022', 'dom'], types: [], skipLibCheck: true,
      },
      files: ['server.ts', 'broken.ts', path.join(ROOT, 'clients/js/typecheck/temporal.d.ts')],
    }));
    let out = '';
    try {
      await run(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', path.join(dir, 'tsconfig.json')]);
    } catch (err) {
      out = `${err.stdout}${err.stderr}`;
    }
    const errors = out.split('\n').filter((line) => /error TS\d+/.test(line));
    const inFile = (name) => (line) => line.includes(`${name}(`);
    const inServer = errors.filter(inFile('server.ts'));
    assert.deepEqual(inServer, [], `the declarations drifted from the server (clients/js/types/index.d.ts):\n${out}`);
    assert.ok(errors.some((line) => inFile('broken.ts')(line) && line.includes('notDeclaredSeconds')), `an undeclared config field is not caught:\n${out}`);
    assert.ok(errors.some((line) => inFile('broken.ts')(line) && line.includes('not_declared')), `an undeclared error code is not caught:\n${out}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
