// The React example (examples/react-chat) in Chromium: two users in two
// browser contexts join one room through @roomlease/react, see each other,
// see each other type, and leave. The page renders in <StrictMode> with
// React's development build (scripts/build-web), so its effects mount twice:
// each user must still send exactly one join, and one leave.
// scripts/test-web serves it at ROOMLEASE_E2E_WEB_URL/react-chat/.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { until } from '../lib/poll.mjs';

const WEB_URL = (process.env.ROOMLEASE_E2E_WEB_URL || '').replace(/\/+$/, '');
const ARTIFACTS = path.resolve(process.env.ROOMLEASE_E2E_ARTIFACTS
  || fileURLToPath(new URL('./artifacts', import.meta.url)));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SLACK_MS = Number(process.env.ROOMLEASE_E2E_SLACK_SECONDS || 10) * 1000;
const ROOM = `react-e2e-${Date.now().toString(36)}`;

const rosterOf = (page) => page.$$eval('[data-testid=participant]', (els) => els.map((e) => e.dataset.name).sort());
const statusOf = (page) => page.getAttribute('[data-testid=status]', 'data-status').catch(() => null);
const typingOf = (page) => page.getAttribute('[data-testid=typing]', 'data-names').catch(() => null);
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

describe(`the React chat example in Chromium (room ${ROOM})`, () => {
  let browser;
  const users = {};

  after(async () => {
    await browser?.close().catch(() => {});
  });

  async function screenshot(label) {
    for (const [name, u] of Object.entries(users)) {
      await u.page.screenshot({ path: path.join(ARTIFACTS, `react-chat-${label}-${name}.png`), fullPage: true }).catch(() => {});
    }
  }

  /** Opens the example as `name` and joins ROOM; records the page's API calls. */
  async function openAs(name) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const calls = [];
    page.on('request', (req) => {
      const m = new URL(req.url()).pathname.match(/^\/v1\/rooms\/[^/]+\/(join|leave)$/);
      if (m && req.method() === 'POST') calls.push(m[1]);
    });
    page.on('pageerror', (err) => console.log(`[${name}] page error: ${err.message}`));
    page.on('console', (msg) => {
      if (msg.type() === 'error') console.log(`[${name}] console error: ${msg.text()}`);
    });
    users[name] = { context, page, calls };
    await page.goto(`${WEB_URL}/react-chat/`);
    await page.waitForSelector('[data-testid=join]', { timeout: 30_000 });
    await page.fill('[data-testid=name]', name);
    await page.fill('[data-testid=room]', ROOM);
    await page.click('[data-testid=join]');
    return { page, calls };
  }

  test('two users see each other, each other typing, and a leave', { timeout: 120_000 }, async () => {
    assert.ok(WEB_URL, 'ROOMLEASE_E2E_WEB_URL is not set: run the browser tests through scripts/test-web');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    });
    try {
      const ada = await openAs('Ada');
      await until('Ada is joined and on her roster', async () => await statusOf(ada.page) === 'joined'
        && same(await rosterOf(ada.page), ['Ada']), SLACK_MS * 3);
      const grace = await openAs('Grace');
      for (const [who, u] of [['Ada', ada], ['Grace', grace]]) {
        await until(`${who} sees Ada and Grace`, async () => same(await rosterOf(u.page), ['Ada', 'Grace']), SLACK_MS * 2);
      }
      // StrictMode mounted each page's room twice; one join went out.
      assert.deepEqual(ada.calls, ['join']);
      assert.deepEqual(grace.calls, ['join']);
      await screenshot('joined');

      await ada.page.fill('[data-testid=draft]', 'hello');
      await until('Grace sees Ada typing', async () => await typingOf(grace.page) === 'Ada', SLACK_MS);
      assert.equal(await typingOf(ada.page), '', 'Ada is not told about her own typing');
      await screenshot('typing');
      // Send clears the draft and the signal at once (not at its expiry).
      await ada.page.click('button[type=submit]');
      await until('Grace no longer sees Ada typing', async () => await typingOf(grace.page) === '', SLACK_MS);

      await ada.page.click('[data-testid=leave]');
      await until('Ada has left', async () => await statusOf(ada.page) === 'left', SLACK_MS);
      await until('Grace sees Ada gone', async () => same(await rosterOf(grace.page), ['Grace']), SLACK_MS);
      // Back unmounts the room: it was left already, so nothing more is sent.
      await ada.page.click('[data-testid=back]');
      await ada.page.waitForSelector('[data-testid=join]');
      await screenshot('left');
      assert.deepEqual(ada.calls, ['join', 'leave']);

      // Closing Grace's room by leaving too: one leave, and nothing after.
      await grace.page.click('[data-testid=leave]');
      await until('Grace has left', async () => await statusOf(grace.page) === 'left', SLACK_MS);
      assert.deepEqual(grace.calls, ['join', 'leave']);
    } catch (err) {
      await screenshot('failed');
      throw err;
    }
  });
});
