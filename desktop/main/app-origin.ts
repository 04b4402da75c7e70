// Where the window's pages come from: the console (dist/console) served by the main process on
// its own scheme, with the daemon's console policy and no network at all (in the app every API
// call goes through the bridge).
export const SCHEME = 'berth-app';
export const APP_ORIGIN = `${SCHEME}://console`;
export const APP_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'";
