// Browser tests of the paths only a real browser has: a duplicated tab
// (which inherits a copy of sessionStorage, and so the original's session
// id) and a closed tab (whose leave goes out with keepalive on pagehide).
// Same environment as presence.test.mjs (scripts/test-web sets it).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { until } from '../lib/poll.mjs';

const WEB_URL = (process.env.ROOMLEASE_E2E_WEB_URL || '').replace(/\/+$/, '');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';


/** What the demo page's client knows, read from window.roomleaseDemo. */
const stateOf = (page) => page.evaluate(() => {
  const d = window.roomleaseDemo;
  const r = d && d.room;
  return {
    sessionId: d ? d.client.sessionId : null,
    stored: sessionStorage.getItem('roomlease.sessionId'),
    initial: window.__initialSessionId ?? null,
    status: r ? r.status : null,
    generation: r ? r.generation : null,
    participants: r ? r.participants.map((p) => ({ name: p.displayName, sessions: p.sessionCount })) : [],
    leases: window.__leases ?? 0,
  };
});

const joinUrl = (room, name) => `${WEB_URL}/?room=${room}&name=${name}&join=1`;

describe('browser tabs', () => {
  let browser;

  before(async () => {
    assert.ok(WEB_URL, 'ROOMLEASE_E2E_WEB_URL is not set: run the browser tests through scripts/test-web');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
        '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--disable-popup-blocking'],
    });
  });

  after(async () => {
    await browser?.close().catch(() => {});
  });

  async function contextWithProbe() {
    const context = await browser.newContext();
    // Records the session id a page starts with, before the client runs:
    // proof that a duplicated tab really inherited the original's.
    await context.addInitScript(() => {
      window.__initialSessionId = sessionStorage.getItem('roomlease.sessionId');
    });
    return context;
  }

  test('a duplicated tab takes a new session id; the original keeps its own and its lease', { timeout: 60_000 }, async () => {
    const room = `tabs-dup-${Date.now().toString(36)}`;
    const context = await contextWithProbe();
    const original = await context.newPage();
    await original.goto(joinUrl(room, 'Ada'));
    const { value: before } = await until('the original tab joined', async () => {
      const s = await stateOf(original);
      return s.status === 'joined' && s.participants.length === 1 && s;
    }, 30_000);
    assert.equal(before.stored, before.sessionId);

    // window.open from the page: a same-origin auxiliary window gets a copy
    // of the opener's sessionStorage, as a duplicated tab does.
    const [copy] = await Promise.all([
      context.waitForEvent('page'),
      original.evaluate((url) => {
        window.open(url);
      }, joinUrl(room, 'Ada')),
    ]);
    const { value: dup } = await until('the copy joined', async () => {
      const s = await stateOf(copy);
      return s.status === 'joined' && s;
    }, 30_000);
    assert.equal(dup.initial, before.sessionId, 'the copy must start with the original\'s id, or this test proves nothing');
    assert.notEqual(dup.sessionId, before.sessionId, 'the copy must take a session id of its own');
    assert.equal(dup.stored, dup.sessionId, 'and keep it in its sessionStorage');

    // One user, two sessions: the server lists Ada once with two tabs.
    await until('the original sees Ada with two sessions', async () => {
      const s = await stateOf(original);
      return s.participants.length === 1 && s.participants[0].sessions === 2;
    }, 10_000);

    // Neither fences the other: two more renewals of the original's lease,
    // with the generation it had before the copy existed.
    await original.evaluate(() => {
      window.__leases = 0;
      window.roomleaseDemo.room.on('lease', () => {
        window.__leases++;
      });
    });
    await until('the original renewed its lease twice', async () => (await stateOf(original)).leases >= 2, 10_000);
    const now = await stateOf(original);
    assert.equal(now.sessionId, before.sessionId, 'the original keeps its id');
    assert.equal(now.stored, before.sessionId);
    assert.equal(now.generation, before.generation, 'the original was never superseded (no rejoin)');
    assert.equal(now.status, 'joined');
    assert.equal((await stateOf(copy)).generation, dup.generation, 'nor was the copy');
    await context.close();
  });

  test('closing a tab leaves on pagehide: the other user sees it gone within 1 s', { timeout: 60_000 }, async () => {
    const room = `tabs-close-${Date.now().toString(36)}`;
    const adaContext = await contextWithProbe();
    const graceContext = await contextWithProbe();
    const ada = await adaContext.newPage();
    const grace = await graceContext.newPage();
    await ada.goto(joinUrl(room, 'Ada'));
    await grace.goto(joinUrl(room, 'Grace'));
    const names = async () => (await stateOf(ada)).participants.map((p) => p.name).sort().join();
    try {
      await until('Ada sees Grace', async () => (await names()) === 'Ada,Grace', 30_000);
    } catch (err) {
      // Say what each page's client thought, so that a failure names its cause.
      throw new Error(`${err.message}\nAda: ${JSON.stringify(await stateOf(ada))}\nGrace: ${JSON.stringify(await stateOf(grace))}`);
    }

    // The bound below means something only if a lease could not end that
    // soon: it lasts at least a lease minus a heartbeat after the last renewal.
    const config = await (await fetch(`${WEB_URL}/config.json`)).json();
    assert.ok(config.leaseSeconds - config.heartbeatSeconds > 1, `lease ${config.leaseSeconds} s, heartbeat ${config.heartbeatSeconds} s: too short for this test`);
    const closedAt = Date.now();
    await grace.close();
    await until('Grace is gone from Ada\'s roster', async () => (await names()) === 'Ada', 5_000, 25);
    const ms = Date.now() - closedAt;
    console.log(`closed tab left Ada's roster ${ms} ms after the close began`);
    // Only the keepalive leave explains this (see the lease check above).
    assert.ok(ms <= 1000, `Grace left Ada's roster ${ms} ms after her tab began to close; want ≤ 1000 ms`);
    await adaContext.close();
    await graceContext.close();
  });
});
