// The README's quick start, as a newcomer pastes it: the first ```jsx block
// under "## Quick start (web)" is taken from README.md, bundled with esbuild
// (the packages from this repository's workspaces), served from a page of its
// of its own, and run in Chromium against the stack
// scripts/test-web starts. Its one edit is the API's address: the snippet
// names scripts/dev's (127.0.0.1:8081), the test stack runs elsewhere. Done
// when the roster shows "Ada": the snippet signed in on the Auth emulator and
// listened on the Firestore emulator because GET /v1/config said so.
//   ROOMLEASE_E2E_WEB_URL  the demo page server; its /config.json names the API
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WEB_URL = (process.env.ROOMLEASE_E2E_WEB_URL || '').replace(/\/+$/, '');
const ARTIFACTS = path.resolve(process.env.ROOMLEASE_E2E_ARTIFACTS
  || fileURLToPath(new URL('./artifacts', import.meta.url)));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SLACK_MS = Number(process.env.ROOMLEASE_E2E_SLACK_SECONDS || 10) * 1000;
const DEV_API_URL = "'http://127.0.0.1:8081'";

/** The first ```jsx block after the README's "## Quick start (web)". */
export function quickStart(readme) {
  const section = readme.indexOf('\n## Quick start (web)\n');
  assert.ok(section >= 0, 'README.md has no "## Quick start (web)" section');
  const block = readme.slice(section).match(/\n```jsx\n([\s\S]*?)\n```\n/);
  assert.ok(block, 'the quick start has no ```jsx block');
  return block[1];
}

describe('the README quick start in Chromium', () => {
  let browser;
  let server;
  after(async () => {
    await browser?.close().catch(() => {});
    server?.close();
  });

  test('shows a roster against the dev stack', { timeout: 120_000 }, async () => {
    assert.ok(WEB_URL, 'ROOMLEASE_E2E_WEB_URL is not set: run the browser tests through scripts/test-web');
    const { apiUrl } = await (await fetch(`${WEB_URL}/config.json`)).json();
    const snippet = quickStart(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
    assert.equal(snippet.split(DEV_API_URL).length, 2, `the quick start should name scripts/dev's API once, as ${DEV_API_URL}`);
    const bundle = await esbuild.build({
      stdin: { contents: snippet.replace(DEV_API_URL, JSON.stringify(apiUrl)), loader: 'jsx', resolveDir: ROOT, sourcefile: 'README-quickstart.jsx' },
      bundle: true, format: 'esm', target: 'es2022', jsx: 'automatic', write: false, logLevel: 'silent',
      define: { 'process.env.NODE_ENV': '"development"' },
    });
    const files = {
      '/': ['text/html', '<!doctype html><meta charset="utf-8"><title>quick start</title><body><script type="module" src="/app.js"></script>'],
      '/app.js': ['text/javascript', bundle.outputFiles[0].text],
      '/favicon.ico': ['image/x-icon', ''],
    };
    server = http.createServer((req, res) => {
      const file = files[req.url];
      res.writeHead(file ? 200 : 404, { 'Content-Type': file ? file[0] : 'text/plain' });
      res.end(file ? file[1] : 'not found');
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    });
    const page = await (await browser.newContext()).newPage();
    const errors = [];
    page.on('pageerror', (err) => errors.push(err.message));
    page.on('console', (msg) => {
      if (msg.type() === 'error') console.log(`[quick start] console error: ${msg.text()}`);
    });
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    try {
      await page.waitForSelector('li', { timeout: SLACK_MS * 3 });
      assert.deepEqual(await page.$$eval('li', (els) => els.map((e) => e.textContent)), ['Ada']);
      assert.deepEqual(errors, []);
    } catch (err) {
      await page.screenshot({ path: path.join(ARTIFACTS, 'quickstart.png'), fullPage: true }).catch(() => {});
      throw new Error(`${err.message}\npage errors: ${JSON.stringify(errors)}`);
    }
    await page.click('button');
    await page.waitForFunction(() => document.querySelectorAll('li').length === 0, null, { timeout: SLACK_MS * 2 });
  });
});
