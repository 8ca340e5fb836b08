// Browser end-to-end test: two users in two independent browser contexts use
// the demo page served by `roomlease-dev -web`, against the emulators.
// scripts/test-web starts the stack and sets:
//   ROOMLEASE_E2E_WEB_URL     the demo page, e.g. http://127.0.0.1:18182
//   ROOMLEASE_E2E_SWEEP_SECONDS  the sweeper's interval (default 1)
//   ROOMLEASE_E2E_ARTIFACTS   where screenshots go (default tests/e2e/artifacts)
//   CHROMIUM                  the browser (default /usr/bin/chromium)
// Timings (lease, heartbeat, grace, typing) are read from /config.json, so
// the deadlines below follow whatever the server was started with.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { until } from '../lib/poll.mjs';
import { roomDocExists } from '../lib/room-doc.mjs';

const WEB_URL = (process.env.ROOMLEASE_E2E_WEB_URL || '').replace(/\/+$/, '');
const SWEEP = Number(process.env.ROOMLEASE_E2E_SWEEP_SECONDS || 1);
const ARTIFACTS = path.resolve(process.env.ROOMLEASE_E2E_ARTIFACTS
  || fileURLToPath(new URL('./artifacts', import.meta.url)));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
// Slack for a loaded two-core CI machine: scheduling, listener delivery.
const SLACK = Number(process.env.ROOMLEASE_E2E_SLACK_SECONDS || 6);

const ROOM = `e2e-${Date.now().toString(36)}`;


const rosterOf = (page) => page.$$eval('[data-testid=participant]', (els) => els.map((e) => e.dataset.name).sort());
const textOf = (page, id) => page.textContent(`[data-testid=${id}]`).then((t) => (t || '').trim());
const attrOf = (page, id, attr) => page.getAttribute(`[data-testid=${id}]`, attr);
const sameNames = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

describe(`demo page end to end (room ${ROOM})`, () => {
  let config;
  let browser;
  const users = {}; // name -> { context, page }
  let failed = null;
  let shot = 0;

  async function screenshot(label) {
    for (const [name, u] of Object.entries(users)) {
      if (u.page.isClosed()) continue;
      const file = path.join(ARTIFACTS, `${String(++shot).padStart(2, '0')}-${label}-${name}.png`);
      await u.page.screenshot({ path: file, fullPage: true }).catch(() => {});
    }
  }

  // Steps depend on each other: after a failure the rest report it instead of
  // failing confusingly.
  function step(name, fn, timeoutMs = 60_000) {
    test(name, { timeout: timeoutMs }, async () => {
      if (failed) throw new Error(`not run: an earlier step failed (${failed})`);
      try {
        await fn();
      } catch (err) {
        failed = name;
        await screenshot(`failed-${name.replace(/\W+/g, '-').slice(0, 40)}`);
        // What each page told its user (refused requests, reconnects).
        for (const [who, u] of Object.entries(users)) {
          if (u.page.isClosed()) continue;
          const log = await u.page.$$eval('[data-testid=log] li', (els) => els.map((e) => Array.from(e.children, (c) => c.textContent).join(' ')).reverse().join('\n'))
            .catch(() => '(unreadable)');
          console.log(`[${who}] page log at the failure:\n${log}`);
        }
        throw err;
      }
    });
  }

  async function openAs(name) {
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (err) => console.log(`[${name}] page error: ${err.message}`));
    // The page's own errors and warnings (the Firestore SDK's stream errors
    // among them), so that a failed step can be read from the output.
    page.on('console', (msg) => {
      if (msg.type() === 'error' || msg.type() === 'warning') console.log(`[${name}] console ${msg.type()}: ${msg.text()}`);
    });
    users[name] = { context, page };
    await page.goto(`${WEB_URL}/`);
    await page.waitForSelector('[data-testid=join-button]:not([disabled])', { timeout: 30_000 });
    await page.fill('[data-testid=name-input]', name);
    await page.fill('[data-testid=room-input]', ROOM);
    await page.click('[data-testid=join-button]');
    return page;
  }

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    console.log(`e2e screenshots: ${ARTIFACTS}`);
  });

  after(async () => {
    await browser?.close().catch(() => {});
  });

  step('roomlease-dev -web serves the demo page and /config.json', async () => {
    assert.ok(WEB_URL, 'ROOMLEASE_E2E_WEB_URL is not set: run the browser tests through scripts/test-web');
    let res;
    try {
      res = await fetch(`${WEB_URL}/config.json`);
    } catch (err) {
      assert.fail(`roomlease-dev -web is not serving ${WEB_URL} (${err.cause?.code || err.message})`);
    }
    assert.equal(res.status, 200, `GET ${WEB_URL}/config.json`);
    config = await res.json();
    for (const key of ['apiUrl', 'projectId', 'authEmulatorUrl', 'firestoreEmulatorHost', 'firestoreEmulatorPort',
      'leaseSeconds', 'heartbeatSeconds', 'emptyRoomGraceSeconds', 'typingSeconds']) {
      assert.ok(config[key] !== undefined && config[key] !== null, `/config.json lacks ${key}: ${JSON.stringify(config)}`);
    }
    const page = await fetch(`${WEB_URL}/`);
    assert.equal(page.status, 200, `GET ${WEB_URL}/`);
    assert.match(await page.text(), /roomlease/);
  });

  step('two users in two browser contexts join one room and see each other', async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    });
    const ada = await openAs('Ada');
    await until('Ada sees herself on the roster', async () => sameNames(await rosterOf(ada), ['Ada']), 20_000);
    const grace = await openAs('Grace');
    for (const [who, page] of [['Ada', ada], ['Grace', grace]]) {
      await until(`${who} sees Ada and Grace`, async () => sameNames(await rosterOf(page), ['Ada', 'Grace']), 20_000);
    }
    const uids = await Promise.all([ada, grace].map((p) => attrOf(p, 'whoami', 'data-uid')));
    assert.notEqual(uids[0], uids[1], 'the two contexts must be two different users');
    assert.equal(await attrOf(ada, 'lifecycle', 'data-state'), 'active');
    await until('both pages show the same revision', async () => {
      const [a, g] = await Promise.all([textOf(ada, 'revision'), textOf(grace, 'revision')]);
      return /^\d+$/.test(a) && a === g && Number(a) >= 2;
    }, 10_000);
    await screenshot('joined');
  });

  step('typing shows on the other page and expires by itself', async () => {
    const { Ada: { page: ada }, Grace: { page: grace } } = users;
    // One burst of keystrokes, then nothing: no "stopped typing" is sent, so
    // only the server-side expiry can make the signal go away.
    await grace.type('[data-testid=message-input]', 'hello', { delay: 20 });
    const shown = await until('Ada sees Grace typing',
      async () => (await textOf(ada, 'typing')).includes('Grace is typing'), 5_000);
    await screenshot('typing');
    const limit = (config.typingSeconds + SWEEP + SLACK) * 1000;
    const gone = await until('the typing signal expires on Ada\'s page', async () => (await textOf(ada, 'typing')) === '', limit);
    console.log(`typing shown after ${shown.ms} ms, gone ${gone.ms} ms later (typing expiry ${config.typingSeconds} s)`);
    assert.equal(await textOf(grace, 'typing'), '', 'Grace never sees her own typing signal');
  });

  step('a read receipt reaches the other page', async () => {
    const { Ada: { page: ada }, Grace: { page: grace } } = users;
    await ada.fill('[data-testid=read-input]', '7');
    await ada.click('[data-testid=read-button]');
    await until('Grace sees that Ada read up to #7', async () => grace.$$eval('[data-testid=participant]',
      (els) => els.some((e) => e.dataset.name === 'Ada' && e.textContent.includes('read up to #7'))), 5_000);
  });

  step('a colour set on one page shows on the other', async () => {
    const { Ada: { page: ada }, Grace: { page: grace } } = users;
    await grace.$eval('[data-testid=colour-input]', (el) => {
      el.value = '#12ab34';
      el.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await until('Ada sees Grace in her colour', async () => ada.$$eval('[data-testid=participant]',
      (els) => els.some((e) => e.dataset.name === 'Grace' && e.dataset.colour === '#12ab34')), 5_000);
  });

  step('a hidden page shows its user away on the other page, who never drops off, and back when shown', async () => {
    const { Ada: { page: ada }, Grace: { page: grace } } = users;
    const graceAway = () => ada.$$eval('[data-testid=participant]',
      (els) => els.find((e) => e.dataset.name === 'Grace')?.dataset.away ?? 'gone');
    // Headless Chromium never hides a page: emulate it as the page sees it,
    // the visibility state and its event.
    const setHidden = (hidden) => grace.evaluate((h) => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => (h ? 'hidden' : 'visible') });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => h });
      document.dispatchEvent(new Event('visibilitychange'));
    }, hidden);
    await setHidden(true);
    await until('Ada sees Grace away', async () => (await graceAway()) === 'true', 5_000, 50);
    await ada.waitForSelector('[data-testid=away-badge]');
    await screenshot('away');
    // Longer than a present lease and a sweep: an away session's lease is
    // the away one, so Grace stays listed throughout.
    const end = Date.now() + (config.leaseSeconds + SWEEP + 2) * 1000;
    while (Date.now() < end) {
      assert.equal(await graceAway(), 'true', 'Grace stays on Ada\'s roster, away');
      await new Promise((r) => setTimeout(r, 200));
    }
    await setHidden(false);
    await until('Ada sees Grace back', async () => (await graceAway()) === 'false', 5_000, 50);
  });

  step('a browser that loses its network says offline at once, and back within its lease keeps that lease', async () => {
    const { Ada: { page: ada }, Grace: { context, page: grace } } = users;
    const logOf = (page) => page.$$eval('[data-testid=log] li', (els) => els.map((e) => e.textContent));
    // Chromium's offline emulation fires the window's offline event and
    // fails every request, as a lost Wi-Fi does.
    await context.setOffline(true);
    await until('Grace\'s page says offline', async () => (await attrOf(grace, 'status', 'data-status')) === 'offline', 5_000, 50);
    assert.ok((await logOf(grace)).some((t) => t.includes('The browser is offline')), 'offline from the browser\'s event, not from failed requests');
    await screenshot('offline');
    await context.setOffline(false);
    await until('Grace\'s page is live again', async () => (await attrOf(grace, 'status', 'data-status')) === 'joined', 10_000, 50);
    assert.ok((await logOf(grace)).some((t) => t.includes('Back online: the lease held')), 'back with a heartbeat of the same lease, not a rejoin');
    assert.ok(sameNames(await rosterOf(ada), ['Ada', 'Grace']), 'Ada still sees Grace');
  });

  step('a graceful leave disappears from the other roster at once', async () => {
    const { Ada: { page: ada }, Grace: { page: grace } } = users;
    await grace.click('[data-testid=leave-button]');
    const { ms } = await until('Grace is gone from Ada\'s roster', async () => sameNames(await rosterOf(ada), ['Ada']), 2_500, 50);
    console.log(`graceful leave seen by the other page after ${ms} ms`);
    assert.equal(await attrOf(grace, 'status', 'data-status'), 'left');
    await until('Ada shows Grace greyed as recently left', async () => ada.$$eval('[data-testid=recently-left-entry]',
      (els) => els.some((e) => e.textContent.includes('Grace') && e.dataset.reason === 'left')), 5_000, 50);
    await screenshot('after-leave');
    // Back in, for the crash.
    await grace.click('[data-testid=leave-button]'); // now "Join again"
    await until('Ada sees Grace again', async () => sameNames(await rosterOf(ada), ['Ada', 'Grace']), 10_000);
    await until('back, Grace is no longer recently left', async () => (await ada.$$('[data-testid=recently-left-entry]')).length === 0, 5_000, 50);
  });

  step('a crashed browser, which sends no leave, drops off after its lease', async () => {
    const { Ada: { page: ada }, Grace: { context, page: grace } } = users;
    // A crash, not a close: a closing page fires pagehide and sends its
    // keepalive leave, and Chromium sends that request from the network
    // process after the page is gone, where neither a route nor offline
    // emulation reliably stops it (CI saw it get through). A crashed
    // renderer runs no handler at all, like a laptop that lost power.
    let blocked = 0;
    await context.route('**/leave', (route) => {
      blocked++;
      return route.abort();
    });
    const cdp = await context.newCDPSession(grace);
    const crashed = grace.waitForEvent('crash', { timeout: 10_000 });
    // The reply to Page.crash never comes: the target is gone.
    cdp.send('Page.crash').catch(() => {});
    await crashed;
    const closedAt = Date.now();
    await context.close();
    delete users.Grace;
    // Her lease was renewed at most one heartbeat ago, so she must stay
    // listed for a while: proof that no leave got through.
    const mustStay = Math.max(500, (config.leaseSeconds - config.heartbeatSeconds) * 1000 - 700);
    while (Date.now() - closedAt < mustStay) {
      assert.ok((await rosterOf(ada)).includes('Grace'), `Grace vanished ${Date.now() - closedAt} ms after her browser crashed: before her lease could end`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const limit = (config.leaseSeconds + SWEEP + SLACK) * 1000;
    await until('the sweeper removes Grace from Ada\'s roster', async () => sameNames(await rosterOf(ada), ['Ada']), limit);
    console.log(`crashed browser dropped off after ${Date.now() - closedAt} ms (lease ${config.leaseSeconds} s, sweep ${SWEEP} s; ${blocked} leave request(s) blocked)`);
    await screenshot('after-crash');
  });

  step('the last one leaves: a countdown from the leave reply, marked as an estimate; nothing read after', async () => {
    const { Ada: { page: ada } } = users;
    // Once Ada has left, the room is not hers to read: the page must not
    // ask the API about it or report a refused listener.
    const after = [];
    const watch = (req) => {
      if (req.url().startsWith(config.apiUrl)) after.push(`${req.method()} ${new URL(req.url()).pathname}`);
    };
    ada.on('request', watch);
    await ada.click('[data-testid=leave-button]');
    await until('Ada\'s page shows the room as suspected empty', async () => (await attrOf(ada, 'lifecycle', 'data-state')) === 'suspected_empty', 5_000);
    const { value: first } = await until('a countdown is shown', async () => {
      const m = (await textOf(ada, 'lifecycle')).match(/torn down in about (\d+) s/);
      return m && Number(m[1]);
    }, 3_000, 50);
    assert.ok(first <= config.emptyRoomGraceSeconds, `countdown ${first} s exceeds the grace of ${config.emptyRoomGraceSeconds} s`);
    assert.match(await textOf(ada, 'lifecycle'), /estimate/, 'the countdown says it is an estimate');
    await screenshot('countdown');
    const limit = (config.emptyRoomGraceSeconds + SLACK) * 1000;
    const { ms } = await until('Ada\'s page shows the teardown due', async () => (await attrOf(ada, 'lifecycle', 'data-state')) === 'teardown_due', limit);
    assert.match(await textOf(ada, 'lifecycle'), /teardown due now unless someone joined/);
    console.log(`countdown started at ${first} s; teardown due ${ms} ms later (grace ${config.emptyRoomGraceSeconds} s)`);
    await screenshot('teardown-due');
    // What the page could not see, the server confirms: the room is gone.
    const { ms: tornMs } = await until('the room document is gone on the server', async () => !(await roomDocExists(config, ROOM)),
      (SWEEP + SLACK) * 1000, 200);
    console.log(`torn down on the server ${tornMs} ms after the page showed it due`);
    ada.off('request', watch);
    const leave = after.indexOf(`POST /v1/rooms/${ROOM}/leave`);
    assert.ok(leave >= 0, `the leave was not seen among ${JSON.stringify(after)}`);
    assert.deepEqual(after.slice(leave + 1), [], 'API requests after the leave');
    const logText = await textOf(ada, 'log');
    assert.doesNotMatch(logText, /listen:\w+ failed/, 'a listener failure was reported after the leave');
  }, 90_000);
});
