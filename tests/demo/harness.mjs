// What the demo's end-to-end files share: the served browser (Chromium under playwright-core,
// or Firefox ESR under puppeteer-core behind the few playwright calls the checks use), a page
// of the demo, a tiny TAP-like check runner, and PNG encoding and decoding.
import { deflateSync, inflateSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { servedChromium } from '../../scripts/chromium.mjs';
import { servedWith, launchFirefox } from '../../scripts/browsers.mjs';

/** → { base, browser, close }: `browser.newPage({viewport})` gives a playwright-style page. */
export async function startDemo(engine = 'chromium') {
  if (engine === 'chromium') return servedChromium();
  if (engine !== 'firefox') throw new Error(`the demo tests run in chromium or firefox, not ${engine}`);
  const { base, browser: firefox, close } = await servedWith(launchFirefox);
  const browser = {
    async newPage({ viewport } = {}) {
      const page = await firefox.newPage();
      if (viewport) await page.setViewport(viewport);
      return playwrightLike(page);
    },
  };
  return { base, browser, close };
}

/** The playwright page calls the demo checks make, on a puppeteer page. */
function playwrightLike(page) {
  return Object.assign(Object.create(page), {
    textContent: (sel) => page.$eval(sel, (e) => e.textContent),
    isHidden: (sel) => page.$eval(sel, (e) => e.hidden || getComputedStyle(e).display === 'none' || e.getClientRects().length === 0),
    waitForSelector: (sel, { state, timeout } = {}) => page.waitForSelector(sel, { visible: state === 'visible', timeout }),
    locator: (sel) => ({ screenshot: async () => Buffer.from(await (await page.$(sel)).screenshot()) }),
    evaluate: (fn, arg) => page.evaluate(fn, arg),
    on: (event, f) => page.on(event, f),
    goto: (url) => page.goto(url),
    reload: () => page.reload(),
    close: () => page.close(),
  });
}

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** A page of the demo, ready to run, that records console errors and uncaught exceptions. */
export async function openDemo(browser, base, viewport = { width: 1280, height: 1000 }) {
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on('pageerror', (e) => errors.push(`pageerror: ${e}`));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`console: ${m.text()}`); });
  await page.goto(`${base}/`);
  await page.evaluate(() => window.demo.ready);
  return { page, errors };
}

/** Runs named checks, printing `ok`/`not ok` for each; `done()` exits with the verdict. */
export function checks(suite) {
  let passed = 0, failed = 0;
  return {
    /** Runs one check, bounded: a page that stops answering fails it by name after `ms`. */
    async check(name, fn, ms = 180_000) {
      let timer;
      const hung = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from the page in ${ms / 1000} s (a page.evaluate or wait in this check hung)`)), ms);
      });
      try { await Promise.race([fn(), hung]); passed++; console.log(`ok - ${name}`); }
      catch (e) { failed++; console.log(`not ok - ${name}\n  ${String(e?.stack ?? e).replaceAll('\n', '\n  ')}`); }
      finally { clearTimeout(timer); }
    },
    done() {
      console.log(`${suite}: ${passed} passed, ${failed} failed`);
      process.exit(failed || !passed ? 1 : 0);
    },
  };
}

/** The concatenated, inflated image data of a PNG (each row still led by its filter byte). */
export function pngData(png) {
  const idat = [];
  for (let at = 8; at < png.length;) {
    const len = png.readUInt32BE(at), type = png.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT') idat.push(png.subarray(at + 8, at + 8 + len));
    at += 12 + len;
  }
  return inflateSync(Buffer.concat(idat));
}

const CRC = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => { let c = ~0; for (const b of buf) c = CRC[(c ^ b) & 0xff] ^ (c >>> 8); return ~c >>> 0; };

/** A PNG (8-bit RGBA, no colour-space chunks, so decoders keep the bytes) of `rgba`. */
export function encodePng(width, height, rgba) {
  const chunk = (type, data) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, 'latin1');
    data.copy(out, 8);
    out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const rows = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) Buffer.from(rgba.buffer, rgba.byteOffset + y * width * 4, width * 4).copy(rows, y * (width * 4 + 1) + 1);
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

/** Decodes an 8-bit RGB or RGBA PNG (what Chromium writes) → { width, height, rgba }. */
export function decodePng(png) {
  const width = png.readUInt32BE(16), height = png.readUInt32BE(20), depth = png[24], type = png[25];
  if (depth !== 8 || (type !== 2 && type !== 6) || png[28] !== 0) throw new Error(`unsupported PNG: depth ${depth}, colour type ${type}, interlace ${png[28]}`);
  const bpp = type === 6 ? 4 : 3, stride = width * bpp, data = pngData(png);
  const raw = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = data[y * (stride + 1)], line = data.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? raw[y * stride + i - bpp] : 0, b = y ? raw[(y - 1) * stride + i] : 0, c = i >= bpp && y ? raw[(y - 1) * stride + i - bpp] : 0;
      const p = a + b - c, [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
      const predict = [0, a, b, (a + b) >> 1, pa <= pb && pa <= pc ? a : pb <= pc ? b : c][filter];
      raw[y * stride + i] = (line[i] + predict) & 255;
    }
  }
  const rgba = new Uint8Array(width * height * 4);
  for (let i = 0; i < width * height; i++) {
    rgba.set(raw.subarray(i * bpp, i * bpp + 3), i * 4);
    rgba[i * 4 + 3] = bpp === 4 ? raw[i * bpp + 3] : 255;
  }
  return { width, height, rgba };
}
