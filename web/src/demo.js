// The demo page: signs in anonymously against the Auth emulator, joins a
// room through the roomlease API and renders what the client library sees.
// The server's settings and the emulator addresses come from /config.json,
// which roomlease-dev serves beside this page.
import { initializeApp } from 'firebase/app';
import { connectAuthEmulator, getAuth, onAuthStateChanged, signInAnonymously } from 'firebase/auth';
import { createRoomleaseClient } from '@roomlease/client/browser';

const $ = (id) => document.getElementById(id);
const NAMES = ['Ada', 'Grace', 'Linus', 'Margaret', 'Alan', 'Barbara', 'Ken', 'Radia', 'Edsger', 'Frances'];

const STATUS_TEXT = {
  joining: 'joining…',
  joined: 'live',
  rejoining: 'rejoining…',
  offline: 'offline (reconnecting…)',
  left: 'left',
  paused: 'crashed (no heartbeats)',
  expired: 'lease expired',
  away: 'away (page hidden)',
  denied: 'not admitted',
  closed: 'closed',
};

let config = null;
let client = null;
/** @type {import('@roomlease/client').Room | null} */
let room = null;
let unsubscribe = [];

main().catch((err) => {
  $('whoami').textContent = 'Could not start';
  showJoinError(`The demo could not start: ${err.message}`);
});

async function main() {
  const res = await fetch('/config.json', { cache: 'no-store' });
  if (!res.ok) throw new Error(`/config.json answered ${res.status}`);
  config = await res.json();

  const app = initializeApp({
    apiKey: 'demo-api-key',
    projectId: config.projectId,
    authDomain: `${config.projectId}.firebaseapp.com`,
  });
  const auth = getAuth(app);
  if (config.authEmulatorUrl) connectAuthEmulator(auth, config.authEmulatorUrl, { disableWarnings: true });

  const user = await new Promise((resolve, reject) => {
    const stop = onAuthStateChanged(auth, (u) => {
      if (u) {
        stop();
        resolve(u);
      }
    }, reject);
    // A returning visitor keeps their anonymous user (IndexedDB).
    auth.authStateReady().then(() => {
      if (!auth.currentUser) signInAnonymously(auth).catch(reject);
    });
  });

  // The client asks the API which Firestore database holds the rooms and
  // opens it from the app (on the emulator here). The last one to leave
  // counts down from the leave reply's cleanupAfter; the grace is only a
  // fallback should a reply lack it.
  const firestoreEmulator = config.firestoreEmulatorHost
    ? { host: config.firestoreEmulatorHost, port: Number(config.firestoreEmulatorPort) }
    : undefined;
  client = createRoomleaseClient({
    apiUrl: config.apiUrl, auth, app, firestoreEmulator, emptyRoomGraceSeconds: config.emptyRoomGraceSeconds,
  });
  window.roomleaseDemo = { client, get room() { return room; }, config };
  // Ask now rather than at the first join, so that the page says which
  // database it listens to, and a mismatch stops it before anyone joins.
  await client.openFirestore();
  $('whoami').innerHTML = '';
  $('whoami').append('Signed in anonymously as ', code(short(user.uid)), ' · this tab\'s session ', code(short(client.sessionId)));
  $('whoami').dataset.uid = user.uid;

  const params = new URLSearchParams(location.search);
  $('name-input').value = params.get('name') || localStorage.getItem('roomlease.demo.name') || pick(NAMES);
  $('room-input').value = params.get('room') || 'lobby';
  $('settings').textContent = settingsLine(config, client.database);
  $('join-button').disabled = false;

  $('join-form').addEventListener('submit', (e) => {
    e.preventDefault();
    join($('room-input').value.trim(), $('name-input').value.trim());
  });
  $('leave-button').addEventListener('click', onLeaveButton);
  $('crash-button').addEventListener('click', onCrashButton);
  $('message-input').addEventListener('input', () => room?.setTyping($('message-input').value.length > 0));
  $('message-input').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      $('message-input').value = '';
      room?.setTyping(false);
    }
  });
  $('read-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const seq = Number($('read-input').value);
    if (!room || !Number.isSafeInteger(seq) || seq < 0) return;
    const stored = await room.markRead(seq).catch((err) => log(`Read receipt refused: ${err.message}`));
    if (stored != null) log(`You have read up to message ${stored}.`);
  });
  setInterval(tick, 250);

  if (params.get('join') === '1') join($('room-input').value, $('name-input').value);
}

async function join(roomId, name) {
  hideJoinError();
  if (!/^[A-Za-z0-9._~-]{1,128}$/.test(roomId) || roomId === '.' || roomId === '..') {
    showJoinError('Room names use letters, digits and - _ . ~ (up to 128).');
    return;
  }
  localStorage.setItem('roomlease.demo.name', name);
  $('join-button').disabled = true;
  try {
    teardownView();
    const r = await client.join(roomId, { displayName: name });
    room = r;
    bindRoom(r);
    const url = new URL(location.href);
    url.searchParams.set('room', roomId);
    url.searchParams.delete('join');
    history.replaceState(null, '', url);
    log(`You joined #${roomId} (session generation ${r.generation}).`);
  } catch (err) {
    showJoinError(`Could not join: ${err.message}`);
  } finally {
    $('join-button').disabled = false;
  }
}

function bindRoom(r) {
  $('join-card').hidden = true;
  $('room-view').hidden = false;
  $('room-name').textContent = r.roomId;
  $('leave-button').textContent = 'Leave';
  $('crash-button').textContent = 'Simulate crash';
  renderStatus(r.status);
  renderRoster(r.participants);
  renderRecentlyLeft(r.recentlyLeft);
  renderTyping(r.typing);
  renderLifecycle(r.room);
  // The colour is this user's state: every participant's roster shows it.
  $('colour-input').oninput = (e) => {
    r.setState({ colour: e.target.value }).catch((err) => log(`Colour not set: ${err.message}`));
  };
  let lastState = r.room?.state ?? null;
  unsubscribe = [
    r.on('status', ({ status, reason }) => {
      renderStatus(status);
      tick();
      if (status === 'rejoining') log('The server no longer knew this lease (409): joining again.');
      if (status === 'joined' && reason === 'rejoin') log(`Rejoined with generation ${r.generation}.`);
      if (status === 'joined' && reason === 'resume') log('Recovered from the crash: checking the lease…');
      if (status === 'offline') {
        log(reason === 'platform' ? 'The browser is offline: trying again when the network is back.' : 'The API does not answer: still trying…');
      }
      if (status === 'joined' && reason === 'online') log(`Back online: the lease held (generation ${r.generation}).`);
      if (status === 'paused') log('Crash simulated: no more heartbeats, no leave.');
      if (status === 'expired') log('Your lease ran out and the sweeper removed you.');
      if (status === 'denied') log('The room refused you.');
    }),
    r.on('participant-joined', ({ participant: p }) => {
      if (!p.isSelf) log(`${p.displayName || 'Someone'} joined.`);
    }),
    r.on('participant-left', ({ participant: p, reason }) => {
      if (!p.isSelf) log(`${p.displayName || 'Someone'} ${reason === 'expired' ? 'dropped (lease expired)' : reason === 'evicted' ? 'was removed' : 'left'}.`);
    }),
    r.on('recently-left', ({ recentlyLeft }) => renderRecentlyLeft(recentlyLeft)),
    r.on('roster', ({ participants }) => {
      renderRoster(participants);
      if (r.room?.state === 'active') renderLifecycle(r.room);
    }),
    r.on('typing', ({ typing }) => renderTyping(typing)),
    r.on('receipts', () => renderRoster(r.participants)),
    r.on('room', (info) => {
      const was = lastState;
      lastState = info.exists === false ? 'deleted' : info.state;
      if (info.exists === false && was !== 'deleted') log('The room was torn down.');
      else if (info.state === 'suspected_empty' && !info.visible) {
        log('You were the last one out: the room is empty, and its teardown is due when the countdown ends unless someone joins. '
          + 'You no longer see the room, so the countdown is an estimate.');
      } else if (info.state === 'suspected_empty' && was !== 'suspected_empty') log('The room is empty: its grace period started.');
      else if (info.state === 'active' && was === 'suspected_empty') log('Someone joined during the grace period: the room is active again.');
      renderLifecycle(info);
    }),
    // Revisions only ever increase, by any amount: show the latest.
    r.on('revision', ({ revision }) => {
      $('revision').textContent = String(revision);
    }),
    r.on('error', ({ error, during }) => {
      if (during !== 'heartbeat' || error.status !== 0) log(`${during} failed: ${error.message} (retrying)`);
    }),
  ];
}

function teardownView() {
  for (const stop of unsubscribe) stop();
  unsubscribe = [];
  if (room && room.status !== 'left') room.close();
  room = null;
}

async function onLeaveButton() {
  if (!room) return;
  if (room.isFinished) {
    join(room.roomId, $('name-input').value.trim());
    return;
  }
  $('leave-button').disabled = true;
  try {
    const { removed } = await room.leave();
    log(removed ? 'You left the room.' : 'You left (the server had already let your lease go).');
  } catch (err) {
    log(`Leave failed: ${err.message}. Your lease will run out by itself.`);
  } finally {
    $('leave-button').disabled = false;
    $('leave-button').textContent = 'Join again';
    renderStatus(room.status);
  }
}

function onCrashButton() {
  if (!room) return;
  if (room.status === 'paused' || room.status === 'expired') {
    room.resume();
    $('crash-button').textContent = 'Simulate crash';
  } else if (room.status === 'joined') {
    room.pause();
    $('crash-button').textContent = 'Recover';
  }
}

// --- rendering ------------------------------------------------------------

function renderStatus(status) {
  $('status').textContent = STATUS_TEXT[status] || status;
  $('status').dataset.status = status;
  $('crash-button').disabled = !['joined', 'paused', 'expired'].includes(status);
  $('message-input').disabled = status !== 'joined';
}

function renderRoster(participants) {
  const list = $('roster');
  list.replaceChildren(...participants.map((p) => {
    const li = document.createElement('li');
    li.dataset.testid = 'participant';
    li.dataset.participantId = p.participantId;
    li.dataset.name = p.displayName;
    const avatar = document.createElement('span');
    avatar.className = 'avatar';
    const colour = typeof p.state?.colour === 'string' && /^#[0-9a-f]{6}$/i.test(p.state.colour) ? p.state.colour : null;
    avatar.style.background = colour || colorFor(p.participantId);
    if (colour) li.dataset.colour = colour;
    li.dataset.away = String(!!p.away);
    avatar.textContent = initials(p.displayName);
    const who = document.createElement('span');
    who.className = 'who';
    const name = document.createElement('span');
    name.className = 'name';
    name.textContent = p.displayName || 'Anonymous';
    if (p.isSelf) {
      const you = document.createElement('span');
      you.className = 'you';
      you.textContent = 'you';
      name.append(you);
    }
    if (p.away) {
      const away = document.createElement('span');
      away.className = 'away-badge';
      away.dataset.testid = 'away-badge';
      away.textContent = 'away';
      name.append(away);
    }
    const meta = document.createElement('span');
    meta.className = 'meta';
    const bits = [];
    if (p.sessionCount > 1) bits.push(`${p.sessionCount} tabs`);
    if (p.joinedAt) bits.push(`joined ${p.joinedAt.toLocaleTimeString()}`);
    const read = room?.receipts[p.participantId];
    if (read !== undefined) bits.push(`read up to #${read}`);
    meta.textContent = bits.join(' · ');
    meta.dataset.testid = 'participant-meta';
    who.append(name, meta);
    li.append(avatar, who);
    return li;
  }));
  $('count').textContent = String(participants.length);
  $('roster-empty').hidden = participants.length > 0;
}

function renderRecentlyLeft(recentlyLeft) {
  $('recently-left').replaceChildren(...recentlyLeft.map((d) => {
    const li = document.createElement('li');
    li.dataset.testid = 'recently-left-entry';
    li.dataset.participantId = d.participantId;
    li.dataset.reason = d.reason;
    li.textContent = `${d.displayName || 'Anonymous'} — ${d.reason}${d.leftAt ? ` at ${d.leftAt.toLocaleTimeString()}` : ''}`;
    return li;
  }));
}

function renderTyping(typing) {
  const others = typing.filter((t) => !t.isSelf).map((t) => t.displayName || 'Someone');
  let text = '';
  if (others.length === 1) text = `${others[0]} is typing…`;
  else if (others.length === 2) text = `${others[0]} and ${others[1]} are typing…`;
  else if (others.length > 2) text = `${others.length} people are typing…`;
  $('typing').textContent = text;
}

function renderLifecycle(info) {
  const el = $('lifecycle');
  if (!info) {
    el.dataset.state = 'unknown';
    $('lifecycle-text').textContent = 'Connecting…';
    return;
  }
  if (info.exists === false) {
    el.dataset.state = 'deleted';
    $('lifecycle-text').textContent = 'Torn down';
  } else if (info.state === 'suspected_empty') {
    renderCountdown(info);
  } else if (!info.visible) {
    el.dataset.state = 'hidden';
    $('lifecycle-text').textContent = 'You left; others are still here (visible to participants only)';
  } else {
    el.dataset.state = 'active';
    $('lifecycle-text').textContent = `Active · ${room?.participants.length ?? 0} here`;
  }
  $('revision').textContent = room?.revision ?? '–';
}

// An empty room's countdown, on the estimated server clock. After our own
// leave (not visible) it is the leave reply's cleanupAfter and nothing more:
// we no longer see the room, so whether it was torn down or revived by a
// join is not known here, and the text says so.
function renderCountdown(info) {
  const el = $('lifecycle');
  const left = info.cleanupAfter ? Math.ceil((info.cleanupAfter.getTime() - client.serverNow().getTime()) / 1000) : null;
  const gone = info.visible ? '' : ' (an estimate: you have left and no longer see the room)';
  el.dataset.state = left !== null && left <= 0 ? 'teardown_due' : 'suspected_empty';
  if (left === null) {
    $('lifecycle-text').textContent = `Empty${gone}`;
  } else if (left > 0) {
    $('lifecycle-text').textContent = info.visible
      ? `Empty · torn down in ${left} s unless someone joins`
      : `Empty · torn down in about ${left} s unless someone joins${gone}`;
  } else {
    $('lifecycle-text').textContent = info.visible
      ? 'Empty · teardown due'
      : 'Empty when you left · teardown due now unless someone joined (not observed: you have left)';
  }
}

/** Four times a second: the countdowns (lease, grace) move on server time. */
function tick() {
  if (!room) return;
  if (room.room?.state === 'suspected_empty') renderCountdown(room.room);
  if (room.status === 'joined' && room.leaseExpiresAt) {
    const left = (room.leaseExpiresAt.getTime() - client.serverNow().getTime()) / 1000;
    $('lease').textContent = left > 0 ? `${left.toFixed(1)} s left` : 'renewing…';
  } else if (room.status === 'paused' && room.leaseExpiresAt) {
    const left = (room.leaseExpiresAt.getTime() - client.serverNow().getTime()) / 1000;
    $('lease').textContent = left > 0 ? `ends in ${left.toFixed(1)} s` : 'ended: waiting for the sweeper';
  } else {
    $('lease').textContent = '–';
  }
}

function settingsLine(c, database) {
  const parts = [`rooms in Firestore database ${database}`];
  if (c.heartbeatSeconds) parts.push(`heartbeat every ${c.heartbeatSeconds} s`);
  if (c.leaseSeconds) parts.push(`lease ${c.leaseSeconds} s`);
  if (c.typingSeconds) parts.push(`typing expires after ${c.typingSeconds} s`);
  if (c.emptyRoomGraceSeconds) parts.push(`empty rooms torn down after ${c.emptyRoomGraceSeconds} s`);
  return `This server: ${parts.join(', ')}.`;
}

function log(text) {
  const li = document.createElement('li');
  const time = document.createElement('time');
  time.textContent = new Date().toLocaleTimeString();
  const span = document.createElement('span');
  span.textContent = text;
  li.append(time, span);
  $('log').prepend(li);
  while ($('log').children.length > 200) $('log').lastElementChild.remove();
}

function showJoinError(text) {
  $('join-card').hidden = false;
  $('join-error').textContent = text;
  $('join-error').hidden = false;
}

function hideJoinError() {
  $('join-error').hidden = true;
}

function code(text) {
  const c = document.createElement('code');
  c.textContent = text;
  return c;
}

function short(id) {
  return id.length > 10 ? `${id.slice(0, 8)}…` : id;
}

function pick(list) {
  return list[Math.floor(Math.random() * list.length)];
}

function initials(name) {
  const parts = (name || '?').trim().split(/\s+/);
  return (parts[0][0] + (parts[1]?.[0] || '')).toUpperCase();
}

function colorFor(id) {
  let h = 0;
  for (const ch of id) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return `hsl(${h} 55% 48%)`;
}
