// What the Chromium-only tests and the benchmarks start with: scripts/serve.mjs (www/, the
// package and the test pages, with COOP/COEP) on a random local port, and Debian's headless
// Chromium under playwright-core, as a playwright `Browser`. `close()` stops both. (The
// behaviour suite runs in every engine through scripts/browsers.mjs.)
import { serve, launchChromium } from './browsers.mjs';

/** → { base: 'http://127.0.0.1:PORT', browser, close } */
export async function servedChromium() {
  const { base, server } = await serve();
  let browser;
  try {
    browser = await launchChromium();
  } catch (e) {
    server.kill();
    throw e;
  }
  return { base, browser, close: async () => { await browser.close(); server.kill(); } };
}
