// What the Chromium-only tests and the benchmarks start with: scripts/serve.mjs (www/, the
// package and the test pages, with COOP/COEP) on a random local port, and Debian's headless
// Chromium under playwright-core, as a playwright `Browser`. `close()` stops both. (The
// behaviour suite runs in every engine through scripts/browsers.mjs.)
import { servedWith, launchChromium } from './browsers.mjs';

/** → { base: 'http://127.0.0.1:PORT', browser, close } */
export const servedChromium = () => servedWith(launchChromium);
