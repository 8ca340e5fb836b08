// Rendering hooks in Node for the tests: react-test-renderer on a concurrent
// root in React's development build, where <StrictMode> mounts every effect
// twice, as it does in an app's dev server. A Probe component records what
// its hook returned and how often its effect mounted and unmounted.
import { StrictMode, createElement as h, useEffect } from 'react';
import TestRenderer from 'react-test-renderer';
import { RoomleaseProvider } from '@roomlease/react';

/**
 * react-test-renderer still works in React 19 but says on every create that
 * it is deprecated; nothing else here tells apart what these tests need
 * (effects, StrictMode, no DOM). Only that one line is kept quiet.
 */
function create(element) {
  const error = console.error;
  console.error = (...args) => {
    if (!String(args[0]).startsWith('react-test-renderer is deprecated')) error(...args);
  };
  try {
    return TestRenderer.create(element);
  } finally {
    console.error = error;
  }
}

/**
 * Renders `use()` (a hook call) in a Probe under a RoomleaseProvider for
 * `client`, in StrictMode unless strict is false. Returns the latest value,
 * the mount and unmount counts, and rerender/unmount.
 */
export function renderHook(client, use, { strict = true } = {}) {
  const probe = { value: undefined, mounts: 0, unmounts: 0, renderer: null };
  function Probe({ use: hook }) {
    probe.value = hook();
    useEffect(() => {
      probe.mounts++;
      return () => {
        probe.unmounts++;
      };
    }, []);
    return null;
  }
  const tree = (hook) => {
    const inner = h(RoomleaseProvider, { client }, h(Probe, { use: hook }));
    return strict ? h(StrictMode, null, inner) : inner;
  };
  probe.renderer = create(tree(use));
  probe.rerender = (next) => probe.renderer.update(tree(next));
  probe.unmount = () => probe.renderer.unmount();
  return probe;
}

/** Renders a whole element (no Probe) and returns the renderer. */
export function render(element) {
  return create(element);
}
