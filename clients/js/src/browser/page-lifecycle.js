// The page lifecycle, mapped onto the core client.
//
//  pagehide            leave every room now, with a keepalive fetch (the last
//                      event a closing tab reliably fires; unload and
//                      beforeunload are not, on mobile). If the leave is
//                      lost, the lease ends by itself.
//  pageshow persisted  back from the back/forward cache, which we left on
//                      pagehide: join again.
//  visibilitychange    hidden: the user is away (the heartbeat sent at once
//                      says so, and the server gives a longer lease and
//                      interval, so a throttled tab shows away instead of
//                      dropping off); shown again: present, and that
//                      heartbeat checks the lease now.
//  online, resume      check the lease now instead of waiting for the timer
//                      (it may have been throttled or frozen); back online,
//                      that check ends the `offline` status.
//  offline             the browser lost its network: live rooms say `offline`
//                      now, rather than after their requests fail.
//
// A hidden tab keeps heartbeating: a call in a background tab is still a
// call (the worker ticker keeps the timer on time).

/**
 * @param {import('../client.js').RoomleaseClient} client
 * @returns {() => void} removes the hooks
 */
export function followPageLifecycle(client, win = globalThis.window, doc = globalThis.document) {
  if (!win || !doc) return () => {};
  const onPageHide = () => client.goAway();
  const onPageShow = (e) => {
    if (e.persisted) client.resumeAll();
  };
  const wake = () => client.wakeAll();
  const onOffline = () => client.goOffline();
  const onVisibility = () => client.setAwayAll(doc.visibilityState === 'hidden');
  if (doc.visibilityState === 'hidden') client.away = true;
  win.addEventListener('pagehide', onPageHide);
  win.addEventListener('pageshow', onPageShow);
  win.addEventListener('online', wake);
  win.addEventListener('offline', onOffline);
  doc.addEventListener('visibilitychange', onVisibility);
  doc.addEventListener('resume', wake);
  return () => {
    win.removeEventListener('pagehide', onPageHide);
    win.removeEventListener('pageshow', onPageShow);
    win.removeEventListener('online', wake);
    win.removeEventListener('offline', onOffline);
    doc.removeEventListener('visibilitychange', onVisibility);
    doc.removeEventListener('resume', wake);
  };
}
