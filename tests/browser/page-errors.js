// Records the page's uncaught errors and unhandled rejections in window.__pageErrors, for an
// engine whose driver does not report them (WebKitGTK over classic WebDriver, see
// scripts/browsers.mjs). A classic script, loaded first by every test page.
window.__pageErrors = [];
addEventListener('error', (e) => window.__pageErrors.push(String(e.error?.stack ?? e.message)));
addEventListener('unhandledrejection', (e) => window.__pageErrors.push(`unhandled rejection: ${e.reason?.stack ?? e.reason}`));
