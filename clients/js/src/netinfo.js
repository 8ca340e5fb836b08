// React Native's NetInfo (@react-native-community/netinfo), when the app
// has installed it: an optional peer dependency, looked up lazily, so the
// React Native adapter works the same without it (minus the early offline
// status). React Native's Metro config allows an optional dependency: a
// require() inside try/catch that does not resolve is left out of the bundle
// and throws at run time. It sits alone in this file because Metro once
// broke the requires that followed an unresolved optional one in the same
// file (facebook/metro#836). In Node (an ES module) there is no require, so
// the lookup finds nothing there either.

function requireNetInfo() {
  try {
    // eslint-disable-next-line no-undef -- Metro's CommonJS require; absent in ES modules
    return require('@react-native-community/netinfo');
  } catch {
    return null;
  }
}

/**
 * NetInfo's default export, or null when it is not installed (or is not
 * what it should be). `load` is for tests.
 * @returns {import('../types/react-native').NetInfoLike | null}
 */
export function optionalNetInfo(load = requireNetInfo) {
  let mod = null;
  try {
    mod = load();
  } catch {
    return null;
  }
  const netInfo = mod && (mod.default || mod);
  return netInfo && typeof netInfo.addEventListener === 'function' ? netInfo : null;
}
