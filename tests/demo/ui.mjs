// The demo page driven the way a person uses it, in headless Chromium: the file picker and
// drag-and-drop open a picture (its exact pixels), files that are not images or are too large
// are refused with a message and the page goes on, the form's values are checked, the 8K
// sample, the Run and Compare buttons, the results table, the per-worker timeline, the queue
// depth chart and the admission line, and the before/after slider (read back from screen
// pixels). tests/demo/run.mjs checks the kernels through the `window.demo.run` hook.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { checks, decodePng, encodePng, openDemo, startDemo } from './harness.mjs';

const { base, browser, close } = await startDemo();
const { check, done } = checks('demo ui');

/** A colourful test picture: every pixel differs from its neighbours, alpha 255. */
function pattern(width, height, seed) {
  const px = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      px[i] = (x * 7 + y * 3 + seed) & 255;
      px[i + 1] = (x * x + y * 11 + seed * 5) & 255;
      px[i + 2] = ((x ^ y) * 13 + seed * 3) & 255;
      px[i + 3] = 255;
    }
  }
  return px;
}

const solid = (width, height, [r, g, b]) => {
  const px = new Uint8Array(width * height * 4);
  for (let i = 0; i < px.length; i += 4) px.set([r, g, b, 255], i);
  return px;
};

try {
  const { page, errors } = await openDemo(browser, base);
  const status = () => page.evaluate(() => ({ text: document.getElementById('status').textContent, error: document.getElementById('status').classList.contains('error') }));

  /** Waits for the status line to leave `previous` and say something final (not "running…"). */
  async function settled(previous) {
    await page.waitForFunction((prev) => {
      const s = document.getElementById('status');
      return s.textContent !== prev && !/…$/.test(s.textContent);
    }, previous, { timeout: 120_000 });
    return status();
  }

  /** Clears the status line, does `act`, and returns the status it settles on. */
  async function act(fn) {
    await page.evaluate(() => { document.getElementById('status').textContent = ''; });
    await fn();
    return settled('');
  }

  /** Fills the form (ids of www/index.html) and clicks Run; → status and the new first table row. */
  async function runForm(form) {
    for (const [id, v] of Object.entries(form)) {
      if (id === 'filter' || id === 'mode' || id === 'sample') await page.selectOption(`#${id}`, v);
      else await page.fill(`#${id}`, String(v));
    }
    const rows = await page.locator('#results tbody tr').count();
    const s = await act(() => page.click('#run'));
    const cells = s.error ? null : await page.locator('#results tbody tr').first().locator('td').allTextContents();
    if (!s.error) assert.equal(await page.locator('#results tbody tr').count(), rows + 1, 'one new row per run');
    return { ...s, cells };
  }

  /** The before canvas: its size and pixels. */
  const before = () => page.evaluate(() => {
    const c = document.getElementById('before');
    return { width: c.width, height: c.height, px: Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data) };
  });

  /** The timeline as drawn for `lanes` workers, checked against the last run's trace: a
   *  worker's lane has tile colours exactly when the trace says it ran tiles. Also counts the
   *  depth chart's blue line. */
  async function timeline(lanes) {
    const drawn = await page.evaluate((lanes) => {
      const trace = window.demo.trace();
      const c = document.getElementById('timeline'), g = c.getContext('2d');
      const laneH = Math.min(30, (c.height - 16) / lanes);
      // Tiles are drawn in saturated colours right of the 40-px label column; text is grey.
      const coloured = (y0, y1) => {
        const d = g.getImageData(40, y0, c.width - 44, y1 - y0).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (d[i + 3] && Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 60) n++;
        return n;
      };
      const depth = document.getElementById('depth'), dg = depth.getContext('2d').getImageData(0, 0, depth.width, depth.height).data;
      let blue = 0;
      for (let i = 0; i < dg.length; i += 4) if (dg[i + 3] && dg[i + 2] > 150 && dg[i] < 80) blue++;
      const ws = [...Array(lanes).keys()];
      return { workers: ws.map((w) => trace.tiles.filter((t) => t.worker === w).length), lanes: ws.map((w) => coloured(4 + w * laneH, 4 + (w + 1) * laneH - 3)),
        outside: trace.tiles.filter((t) => !(t.worker >= 0 && t.worker < lanes)).length, blue };
    }, lanes);
    assert.equal(drawn.outside, 0, `tiles of workers outside 0..${lanes - 1}`);
    drawn.workers.forEach((n, w) => {
      if (n) assert.ok(drawn.lanes[w] > 0, `worker ${w} ran ${n} tiles but its lane has ${drawn.lanes[w]} coloured pixels`);
      else assert.equal(drawn.lanes[w], 0, `worker ${w} ran no tile but its lane is drawn`);
    });
    return drawn;
  }

  const photo = { width: 301, height: 199 };
  photo.px = pattern(photo.width, photo.height, 1);

  await check('the file picker opens a PNG: its exact pixels become the picture', async () => {
    const s = await act(() => page.setInputFiles('#file', { name: 'photo.png', mimeType: 'image/png', buffer: encodePng(photo.width, photo.height, photo.px) }));
    assert.deepEqual(s, { text: 'image photo.png, 301×199', error: false });
    const b = await before();
    assert.deepEqual([b.width, b.height], [photo.width, photo.height]);
    assert.ok(b.px.every((v, i) => v === photo.px[i]), 'the before canvas holds the file\'s pixels');
  });

  await check('Run filters the opened picture: ringpool, wasm-single and rayon agree, plain JS within rounding', async () => {
    const sums = {}, outputs = {};
    for (const mode of ['ringpool', 'ringpool-each', 'wasm-single', 'rayon', 'js']) {
      const r = await runForm({ mode, filter: 'blur', radius: 3, workers: 2, 'tile-rows': 7, queue: 256 });
      assert.equal(r.error, false, r.text);
      assert.match(r.text, new RegExp(`^${mode}: [\\d.]+ ms on \\d+ threads? · checksum [0-9a-f]{8}$`));
      const [label, threads, filter, image, tileRows, ms, , checksum] = r.cells;
      assert.deepEqual([label, filter, image, tileRows], [mode, 'blur r=3', '301×199', '7']);
      assert.equal(threads, ['ringpool', 'ringpool-each', 'rayon'].includes(mode) ? '2' : '1');
      assert.ok(Number(ms) >= 0, ms);
      assert.ok(r.text.endsWith(checksum), 'the table and the status line show the same checksum');
      sums[mode] = checksum;
      outputs[mode] = await page.evaluate(() => Array.from(window.demo.output()));
    }
    assert.equal(sums.ringpool, sums['wasm-single']);
    assert.equal(sums['ringpool-each'], sums['wasm-single']);
    assert.equal(sums.rayon, sums['wasm-single']);
    const diff = outputs.js.reduce((m, v, i) => Math.max(m, Math.abs(v - outputs.ringpool[i])), 0);
    assert.ok(diff <= 1, `plain JS differs from ringpool by up to ${diff}`);
    const changed = outputs.ringpool.filter((v, i) => v !== photo.px[i]).length;
    assert.ok(changed > photo.px.length / 2, `the blur changed only ${changed} bytes of the photo`);
  });

  await check('Save result downloads the shown result as a PNG of exactly its pixels', async () => {
    assert.equal(await page.isDisabled('#save'), false, 'enabled once a result is shown');
    const [download, s] = await Promise.all([page.waitForEvent('download'), act(() => page.click('#save'))]);
    assert.equal(download.suggestedFilename(), 'photo-blur.png');
    assert.deepEqual(s, { text: 'saved photo-blur.png (301×199)', error: false });
    const png = decodePng(readFileSync(await download.path()));
    assert.deepEqual([png.width, png.height], [photo.width, photo.height]);
    const output = await page.evaluate(() => Array.from(window.demo.output()));
    assert.ok(png.rgba.every((v, i) => v === output[i]), 'the file holds the result\'s bytes');
  });

  const dropped = { width: 120, height: 80 };
  dropped.px = pattern(dropped.width, dropped.height, 9);
  await check('dropping an image on the picture opens it', async () => {
    const bytes = Array.from(encodePng(dropped.width, dropped.height, dropped.px));
    const s = await act(async () => {
      const dt = await page.evaluateHandle((b) => {
        const t = new DataTransfer();
        t.items.add(new File([new Uint8Array(b)], 'dropped.png', { type: 'image/png' }));
        return t;
      }, bytes);
      await page.dispatchEvent('#stage', 'dragover', { dataTransfer: dt });
      assert.equal(await page.evaluate(() => document.getElementById('stage').classList.contains('dragging')), true, 'the drop zone is highlighted while dragging');
      await page.dispatchEvent('#stage', 'drop', { dataTransfer: dt });
    });
    assert.deepEqual(s, { text: 'image dropped.png, 120×80', error: false });
    assert.equal(await page.evaluate(() => document.getElementById('stage').classList.contains('dragging')), false);
    const b = await before();
    assert.deepEqual([b.width, b.height], [dropped.width, dropped.height]);
    assert.ok(b.px.every((v, i) => v === dropped.px[i]), 'the before canvas holds the dropped pixels');
    assert.equal(await page.isDisabled('#save'), true, 'no result of the new picture to save yet');
  });

  await check('a file that is not an image, or one too large, is refused with a message; the picture stays and runs', async () => {
    let s = await act(() => page.setInputFiles('#file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not a picture') }));
    assert.equal(s.error, true);
    assert.match(s.text, /^TypeError: notes\.txt is not an image this browser can decode/);
    s = await act(() => page.setInputFiles('#file', { name: 'wide.png', mimeType: 'image/png', buffer: encodePng(16385, 1, solid(16385, 1, [1, 2, 3])) }));
    assert.equal(s.error, true);
    assert.match(s.text, /^RangeError: wide\.png is 16385×1; the demo takes up to 16384 px a side/);
    const b = await before();
    assert.deepEqual([b.width, b.height], [dropped.width, dropped.height], 'the previous picture is kept');
    const r = await runForm({ mode: 'ringpool', filter: 'sobel', workers: 2, 'tile-rows': 16 });
    assert.equal(r.error, false, r.text);
    assert.equal(r.cells[3], '120×80');
  });

  await check('form values out of range are refused with a RangeError naming the field; the next run works', async () => {
    const good = { mode: 'ringpool', filter: 'blur', radius: 4, workers: 2, 'tile-rows': 16, queue: 256 };
    const cases = [
      [{ workers: 0 }, /^RangeError: workers must be an integer >= 1, got 0$/],
      [{ 'tile-rows': 2.5 }, /^RangeError: tileRows must be an integer >= 1, got 2\.5$/],
      [{ queue: 0 }, /^RangeError: queue must be an integer >= 1, got 0$/],
      [{ radius: 65 }, /^RangeError: .*radius.*64/],
      [{ radius: 0 }, /^RangeError: .*radius/],
    ];
    for (const [bad, message] of cases) {
      const r = await runForm({ ...good, ...bad });
      assert.equal(r.error, true, `${JSON.stringify(bad)} was accepted: ${r.text}`);
      assert.match(r.text, message);
    }
    const r = await runForm(good);
    assert.equal(r.error, false, r.text);
    assert.deepEqual(r.cells.slice(2, 5), ['blur r=4', '120×80', '16']);
  });

  await check('the timeline draws every worker\'s tiles in its lane, the queue depth chart and the admission line follow the run', async () => {
    await page.selectOption('#sample', '1024x768');
    const s = await act(() => page.click('#make-sample'));
    assert.deepEqual(s, { text: 'image 1024×768', error: false });
    const r = await runForm({ mode: 'ringpool-each', filter: 'blur', radius: 2, workers: 2, 'tile-rows': 8, queue: 2 });
    assert.equal(r.error, false, r.text);
    const admission = await page.textContent('#admission');
    const [, tiles, admitted, refused] = admission.match(/^(\d+) tiles: (\d+) admitted, (\d+) refused by trySubmit with QueueFullError/).map(Number);
    assert.equal(tiles, 768 / 8);
    assert.equal(admitted, tiles);
    assert.ok(refused > 0, admission);
    const drawn = await timeline(2);
    assert.equal(drawn.workers[0] + drawn.workers[1], tiles);
    assert.ok(drawn.blue > 50, `the queue depth line: ${drawn.blue} pixels`);
    const all = await runForm({ mode: 'ringpool', queue: 2 });
    assert.equal(all.error, false, all.text);
    assert.match(await page.textContent('#admission'), /^96 tiles in one submitAll: \d+ admitted at once, \d+ waited for queue space$/);
  });

  await check('the worker count comes from the form: 1 and 3 workers, each worker\'s tiles in its own lane', async () => {
    for (const workers of [1, 3]) {
      const r = await runForm({ mode: 'ringpool', filter: 'emboss', workers, 'tile-rows': 8, queue: 256 });
      assert.equal(r.error, false, r.text);
      assert.equal(r.cells[1], String(workers), 'threads column');
      assert.match(r.text, new RegExp(`on ${workers} threads?`));
      const drawn = await timeline(workers);
      assert.equal(drawn.workers.reduce((a, b) => a + b, 0), 768 / 8);
    }
  });

  await check('the 8K sample is generated at 7680×4320 and filtered', async () => {
    await page.selectOption('#sample', '7680x4320');
    const s = await act(() => page.click('#make-sample'));
    assert.deepEqual(s, { text: 'image 7680×4320', error: false });
    const sums = {};
    for (const mode of ['ringpool', 'wasm-single']) {
      const r = await runForm({ mode, filter: 'grayscale', workers: 2, 'tile-rows': 64, queue: 256 });
      assert.equal(r.error, false, r.text);
      assert.equal(r.cells[3], '7680×4320');
      sums[mode] = r.cells[7];
    }
    assert.equal(sums.ringpool, sums['wasm-single']);
    const size = await page.evaluate(() => [document.getElementById('after').width, document.getElementById('after').height]);
    assert.deepEqual(size, [7680, 4320]);
  });

  await check('the before/after slider shows the original left of the divider and the result right of it', async () => {
    const red = [220, 30, 30];
    await act(() => page.setInputFiles('#file', { name: 'red.png', mimeType: 'image/png', buffer: encodePng(200, 100, solid(200, 100, red)) }));
    const r = await runForm({ mode: 'ringpool', filter: 'grayscale', workers: 2, 'tile-rows': 16 });
    assert.equal(r.error, false, r.text);
    const box = await page.locator('#stage').boundingBox();
    const pixel = async (fx) => {
      const shot = await page.screenshot({ clip: { x: Math.round(box.x + fx * box.width), y: Math.round(box.y + box.height / 2), width: 1, height: 1 } });
      return Array.from(decodePng(shot).rgba.subarray(0, 3));
    };
    const isRed = ([r, g, b]) => r > 180 && g < 70 && b < 70;
    const isGrey = ([r, g, b]) => Math.max(r, g, b) - Math.min(r, g, b) < 12;
    await page.locator('#slider').fill('30');
    let [left, right] = [await pixel(0.15), await pixel(0.6)];
    assert.ok(isRed(left) && isGrey(right), `slider at 30 %: left ${left}, right ${right}`);
    await page.locator('#slider').fill('80');
    [left, right] = [await pixel(0.6), await pixel(0.9)];
    assert.ok(isRed(left) && isGrey(right), `slider at 80 %: at 60 % ${left}, at 90 % ${right}`);
  });

  await check('Compare all modes adds each mode\'s median run; the wasm modes agree', async () => {
    await page.selectOption('#sample', '1024x768');
    await act(() => page.click('#make-sample'));
    for (const [id, v] of Object.entries({ radius: 2, workers: 2, 'tile-rows': 32, queue: 256 })) await page.fill(`#${id}`, String(v));
    await page.selectOption('#filter', 'blur');
    await page.selectOption('#mode', 'ringpool');
    const rows = await page.locator('#results tbody tr').count();
    const s = await act(() => page.click('#compare'));
    assert.equal(s.error, false, s.text);
    assert.match(s.text, /^compared 5 modes, 3 rounds each/);
    const table = await page.locator('#results tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
    assert.equal(table.length, rows + 5);
    const added = Object.fromEntries(table.slice(0, 5).map((c) => [c[0].replace(' (median of 3)', ''), c]));
    assert.deepEqual(Object.keys(added).sort(), ['js', 'rayon', 'ringpool', 'ringpool-each', 'wasm-single']);
    for (const m of ['ringpool', 'ringpool-each', 'rayon']) assert.equal(added[m][7], added['wasm-single'][7], `${m} checksum`);
    assert.equal(added['wasm-single'][6], '1.00×');
    const shownSum = await page.evaluate(() => {
      let h = 0x811c9dc5;
      for (const b of window.demo.output()) h = Math.imul(h ^ b, 0x01000193) >>> 0;
      return h.toString(16).padStart(8, '0');
    });
    assert.equal(shownSum, added.ringpool[7], 'the picture shown (and saved) is the chosen mode\'s output');
    for (const m of ['ringpool', 'js']) assert.match(added[m][6], /^\d+\.\d\d×$/);
  });

  await check('a drawn hook run shows its options in the form, and Run then repeats it; an undrawn one leaves the form alone', async () => {
    const form = () => page.evaluate(() => Object.fromEntries(['sample', 'filter', 'mode', 'workers', 'tile-rows', 'queue', 'radius', 'amount']
      .map((id) => [id, document.getElementById(id).value])));
    const before = await form();
    await page.evaluate(() => window.demo.run({ filter: 'sobel', mode: 'wasm-single', width: 640, height: 480, show: false }));
    assert.deepEqual(await form(), before);
    const hook = await page.evaluate(() => window.demo.run({ filter: 'sharpen', mode: 'ringpool-each', workers: 3, width: 2048, height: 2048,
      tileRows: 48, queue: 7, params: { radius: 3, amount: 0.5 } }));
    assert.deepEqual(await form(), { sample: '2048x2048', filter: 'sharpen', mode: 'ringpool-each', workers: '3', 'tile-rows': '48', queue: '7', radius: '3', amount: '0.5' });
    const r = await runForm({});
    assert.equal(r.error, false, r.text);
    assert.deepEqual([r.cells[0], r.cells[1], r.cells[2], r.cells[3], r.cells[4], r.cells[7]],
      ['ringpool-each', '3', 'sharpen r=3', '2048×2048', '48', hook.checksum.toString(16).padStart(8, '0')]);
  });

  await check('the page ran all of this without console errors', () => assert.deepEqual(errors, []));
} finally {
  await close();
}
done();
