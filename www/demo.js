// The image demo: the picture lives in pool memory (two RGBA views, src and dst); a run splits
// it into tiles of `tileRows` rows and runs one task per tile. Modes:
//   ringpool       one `image.*` Rust task per tile on a pool of N workers, all in one
//                  `pool.submitAll` (it waits for queue space: backpressure); the tiles wake
//                  this thread once, when the last one is done
//   ringpool-each  the same tiles with one promise each: `trySubmit`, then `submit` for the
//                  tiles the full queue refused; every tile wakes this thread
//   wasm-single    the same Rust kernel as one task over the whole image (one thread)
//   js             js-kernels.js as one JS task over the whole image (one thread)
//   rayon          the same Rust kernel under wasm-bindgen-rayon's `par_chunks_mut` over the same
//                  tiles, started from a pool worker (rayon blocks its caller)
// On a page that is not cross-origin isolated the pools run in message mode: the picture is a
// plain array, each tile task copies the rows it reads (`image.*` with dst null) and its result
// brings the tile's rows back; rayon, which needs shared memory, is off.
// `window.demo.run(...)` is the hook the e2e tests and bench/demo.mjs drive.
import { jsFilter } from './js-kernels.js';

const $ = (id) => document.getElementById(id);
const cores = navigator.hardwareConcurrency || 4;
const clock = () => performance.timeOrigin + performance.now();
const FILTERS = ['grayscale', 'blur', 'sharpen', 'sobel', 'emboss'];
const MODES = ['ringpool', 'ringpool-each', 'wasm-single', 'js', 'rayon'];
const COMPARE_ROUNDS = 3;

function setStatus(text, error = false) {
  $('status').textContent = text;
  $('status').classList.toggle('error', error);
}

function explainIsolation(detail) {
  $('isolation').hidden = false;
  $('app').hidden = true;
  $('isolation-detail').textContent = detail ?? '';
}

let lib, glue, holder;
// Shared mode keeps the picture in pool memory; message mode (no isolation) in plain arrays.
const shared = globalThis.crossOriginIsolated === true;
const ready = (async () => {
  lib = await import('./wasm/index.js');
  glue = await import('./wasm/ringpool.js');
  try {
    // One worker: holds the images and runs the one-thread modes.
    holder = await lib.Pool.create({ workers: 1, queueCapacity: 4 });
  } catch (e) {
    explainIsolation(e.message);
    throw e;
  }
  showPoolMode(holder.mode);
})();

/** Says which mode the pools run in, and why. */
function showPoolMode(mode) {
  $('pool-mode').textContent = mode === 'shared'
    ? 'Shared mode: this page is cross-origin isolated, so the workers share one wasm memory and the tiles are never copied.'
    : 'Message mode: this page is not cross-origin isolated (crossOriginIsolated is false: no COOP/COEP or Document-Isolation-Policy headers), '
      + 'so each tile task copies the rows it reads and its result posts the tile back; rayon needs shared memory and is off. '
      + 'Serve the page with Cross-Origin-Opener-Policy: same-origin and Cross-Origin-Embedder-Policy: require-corp for zero-copy tiles.';
  $('pool-mode').dataset.mode = mode;
  if (mode !== 'shared') $('mode').querySelector('option[value="rayon"]').disabled = true;
}

// ---- the image in pool memory -------------------------------------------------------------

let picture = null; // { width, height, src, dst, label }
let shown = null; // the filter whose result the after canvas shows, for the saved file's name

function setPicture(width, height, label, fill) {
  if (picture && shared) { holder.free(picture.src); holder.free(picture.dst); }
  picture = null;
  const alloc = (n) => (shared ? holder.alloc(Uint8Array, n) : new Uint8Array(n));
  const src = alloc(width * height * 4);
  const dst = alloc(width * height * 4);
  fill(src);
  picture = { width, height, src, dst, label };
  for (const id of ['before', 'after']) { $(id).width = width; $(id).height = height; }
  paint('before', src);
  $('after').getContext('2d').clearRect(0, 0, width, height);
  shown = null;
  $('save').disabled = true;
}

function paint(canvasId, view) {
  const { width, height } = picture;
  // ImageData cannot wrap shared memory: copy out.
  const pixels = new Uint8ClampedArray(view.length);
  pixels.set(view);
  $(canvasId).getContext('2d').putImageData(new ImageData(pixels, width, height), 0, 0);
}

function useSample(width, height) {
  if (picture?.label === `sample ${width}×${height}`) return;
  setPicture(width, height, `sample ${width}×${height}`, (v) => lib.image.sample(v, width, height));
}

async function openFile(file) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch (e) {
    throw new TypeError(`${file.name} is not an image this browser can decode (${e.message})`);
  }
  const { width, height } = bitmap;
  if (width > 16384 || height > 16384 || width * height > 7680 * 4320 * 2) {
    throw new RangeError(`${file.name} is ${width}×${height}; the demo takes up to 16384 px a side and 66 megapixels`);
  }
  const canvas = new OffscreenCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.drawImage(bitmap, 0, 0);
  const data = ctx.getImageData(0, 0, width, height).data;
  setPicture(width, height, file.name, (v) => v.set(data));
}

// ---- pools --------------------------------------------------------------------------------

let pool = null;
async function poolFor(workers, queueCapacity) {
  if (pool && pool.workers === workers && pool.queueCapacity === queueCapacity) return pool;
  if (pool) await pool.shutdown();
  pool = null;
  pool = await lib.Pool.create({ workers, queueCapacity });
  return pool;
}

let rayonThreads = 0;
async function rayonReady(threads) {
  // wasm-bindgen-rayon has one global pool per page: its size is fixed by the first call.
  if (!rayonThreads) { await glue.initThreadPool(threads); rayonThreads = threads; }
  return rayonThreads;
}

// ---- running ------------------------------------------------------------------------------

function tileTask(filter, params, p, y0, y1) {
  const { src, width, height } = p;
  const dst = shared ? p.dst : null; // null: by value, the tile's rows come back as `pixels`
  switch (filter) {
    case 'grayscale': return lib.image.grayscale(src, dst, width, height, y0, y1);
    case 'blur': return lib.image.blur(src, dst, width, height, params.radius, y0, y1);
    case 'sharpen': return lib.image.sharpen(src, dst, width, height, params.radius, params.amount, y0, y1);
    case 'sobel': return lib.image.sobel(src, dst, width, height, y0, y1);
    case 'emboss': return lib.image.emboss(src, dst, width, height, y0, y1);
    default: throw new RangeError(`filter must be one of ${FILTERS.join(', ')}, got ${filter}`);
  }
}

// Tiles in round-robin order over `workers` bands of the image (band 0's first tile, band
// 1's first tile, …, band 0's second tile, …). Workers take tiles in submission order, so
// each one tends to walk down one band: a tile's halo rows (radius above and below) are then
// the rows its worker just read, still in that core's cache, as in rayon's split of the range.
function tileOrder(height, tileRows, workers) {
  const tiles = Math.ceil(height / tileRows), per = Math.ceil(tiles / workers), out = [];
  for (let k = 0; k < per; k++) {
    for (let b = 0; b < workers; b++) {
      const t = b * per + k;
      if (t < tiles) out.push(t * tileRows);
    }
  }
  return out;
}

async function runFilter({ filter, mode, workers, tileRows, queue, params }) {
  if (!MODES.includes(mode)) throw new RangeError(`mode must be one of ${MODES.join(', ')}, got ${mode}`);
  if (!FILTERS.includes(filter)) throw new RangeError(`filter must be one of ${FILTERS.join(', ')}, got ${filter}`);
  const p = picture;
  p.dst.fill(0);
  const trace = { tiles: [], depth: [], capacity: queue, admitted: 0, rejected: 0, waited: 0 };
  let threads = 1;
  const t0 = clock();
  if (mode === 'ringpool' || mode === 'ringpool-each') {
    const pl = await poolFor(workers, queue);
    threads = workers;
    const before = pl.stats();
    const order = tileOrder(p.height, tileRows, workers);
    const tile = (y0) => tileTask(filter, params, p, y0, Math.min(p.height, y0 + tileRows));
    const t1 = clock(); // pool creation is not part of the run
    let reports;
    if (mode === 'ringpool') {
      const all = pl.submitAll(order.map(tile));
      trace.admitted = pl.stats().accepted - before.accepted; // admitted during the call
      trace.waited = order.length - trace.admitted;
      reports = await all;
    } else {
      reports = await Promise.all(order.map((y0) => pl.trySubmit(tile(y0)).catch((e) => {
        if (!(e instanceof lib.QueueFullError)) throw e;
        return pl.submit(tile(y0)); // waits for space, in order
      })));
      trace.admitted = pl.stats().accepted - before.accepted;
      trace.rejected = pl.stats().rejected - before.rejected;
    }
    if (!shared) reports.forEach((r, i) => p.dst.set(r.pixels, order[i] * p.width * 4));
    reports.forEach(({ pixels, ...r }, i) => trace.tiles.push({ queued: 0, ...r, y0: order[i], y1: Math.min(p.height, order[i] + tileRows) }));
    // Queue depth as each tile saw it when it started (reported by the worker: sampling it here
    // would cost this thread a wake-up per tile).
    trace.depth = trace.tiles.map((t) => [t.start, t.queued]).sort((a, b) => a[0] - b[0]);
    return finish(t1, threads, trace);
  }
  if (mode === 'wasm-single') {
    const { pixels, ...r } = await holder.trySubmit(tileTask(filter, params, p, 0, p.height));
    if (!shared) p.dst.set(pixels);
    trace.tiles.push({ ...r, y0: 0, y1: p.height });
  } else if (mode === 'js') {
    const start = clock();
    if (shared) await holder.trySubmit(jsFilter, [filter, params, p.src, p.dst, p.width, p.height, 0, p.height]);
    else p.dst.set(await holder.trySubmit(jsFilterByValue, [filter, params, p.src, p.width, p.height]));
    trace.tiles.push({ worker: 0, start, end: clock(), y0: 0, y1: p.height });
  } else {
    if (!shared) throw new TypeError('rayon needs shared memory: this page is not cross-origin isolated (serve it with COOP/COEP)');
    threads = await rayonReady(workers);
    const t1 = clock(); // starting rayon's threads (first run only) is not part of the run
    const r = await holder.trySubmit(glue.rayonFilter(filter, params.radius ?? 0, params.amount ?? 0, p.src, p.dst, p.width, p.height, tileRows));
    // r.tiles: five numbers per chunk (rayon thread, start, end, y0, y1).
    for (let i = 0; i < r.tiles.length; i += 5) {
      const [worker, start, end, y0, y1] = r.tiles.subarray(i, i + 5);
      trace.tiles.push({ worker, start, end, y0, y1 });
    }
    return finish(t1, threads, trace);
  }
  return finish(t0, threads, trace);
}

// jsFilter over a plain array, returning the new picture (message mode: the worker's writes
// would not reach this thread's array). Built from jsFilter's source: a task is sent as source.
const jsFilterByValue = new Function(`return (filter, params, src, width, height) => {
  const dst = new Uint8Array(src.length);
  (${jsFilter})(filter, params, src, dst, width, height, 0, height);
  return dst;
}`)();

function finish(t0, threads, trace) {
  const ms = clock() - t0;
  trace.start = t0;
  trace.end = t0 + ms;
  return { ms, threads, trace, checksum: lib.image.checksum(picture.dst) };
}

// ---- drawing ------------------------------------------------------------------------------

function drawTimeline(trace, lanes) {
  const c = $('timeline'), g = c.getContext('2d');
  c.width = c.clientWidth * devicePixelRatio || 640;
  g.clearRect(0, 0, c.width, c.height);
  const span = Math.max(trace.end - trace.start, 1e-3), left = 40, w = c.width - left - 4;
  const laneH = Math.min(30, (c.height - 16) / Math.max(lanes, 1));
  g.font = '11px system-ui'; g.fillStyle = '#5b6670';
  for (let i = 0; i < lanes; i++) g.fillText(`w${i}`, 4, 12 + i * laneH + laneH / 2);
  trace.tiles.forEach((t, i) => {
    const lane = Math.max(0, t.worker);
    g.fillStyle = `hsl(${(t.y0 * 0.37 + i * 11) % 360} 60% 55%)`;
    const x = left + ((t.start - trace.start) / span) * w;
    g.fillRect(x, 4 + lane * laneH, Math.max(1, ((t.end - t.start) / span) * w), laneH - 3);
  });
  g.fillStyle = '#5b6670';
  g.fillText(`${span.toFixed(1)} ms`, c.width - 60, c.height - 3);
}

function drawDepth(trace) {
  const c = $('depth'), g = c.getContext('2d');
  c.width = c.clientWidth * devicePixelRatio || 640;
  g.clearRect(0, 0, c.width, c.height);
  const span = Math.max(trace.end - trace.start, 1e-3), cap = Math.max(trace.capacity, 1), h = c.height - 14;
  g.strokeStyle = '#d9dee3'; g.beginPath(); g.moveTo(0, 4); g.lineTo(c.width, 4); g.stroke();
  g.strokeStyle = '#0b6bcb'; g.beginPath();
  for (const [i, [t, q]] of trace.depth.entries()) {
    const x = ((t - trace.start) / span) * c.width, y = 4 + h - (q / cap) * h;
    if (i === 0) g.moveTo(x, y); else g.lineTo(x, y);
  }
  g.stroke();
  g.fillStyle = '#5b6670'; g.font = '11px system-ui';
  g.fillText(`capacity ${cap}`, 4, c.height - 2);
}

const singleMs = new Map();
function addResult(opts, r, label = opts.mode) {
  const key = `${opts.filter}|${JSON.stringify(opts.params)}|${picture.width}x${picture.height}`;
  if (opts.mode === 'wasm-single') singleMs.set(key, r.ms);
  const base = singleMs.get(key);
  const row = document.createElement('tr');
  const cells = [label, r.threads, opts.filter + (opts.filter === 'blur' || opts.filter === 'sharpen' ? ` r=${opts.params.radius}` : ''),
    `${picture.width}×${picture.height}`, opts.tileRows, r.ms.toFixed(1), base ? `${(base / r.ms).toFixed(2)}×` : '—',
    r.checksum.toString(16).padStart(8, '0')];
  for (const v of cells) { const td = document.createElement('td'); td.textContent = v; row.append(td); }
  $('results').tBodies[0].prepend(row);
}

// ---- wiring -------------------------------------------------------------------------------

function formOptions() {
  return {
    filter: $('filter').value,
    mode: $('mode').value,
    workers: Number($('workers').value),
    tileRows: Number($('tile-rows').value),
    queue: Number($('queue').value),
    params: { radius: Number($('radius').value), amount: Number($('amount').value) },
  };
}

/** Puts a hook run's options into the form, so the page shows what it ran. */
function fillForm(o) {
  for (const [id, v] of [['filter', o.filter], ['mode', o.mode], ['workers', o.workers], ['tile-rows', o.tileRows], ['queue', o.queue],
    ['radius', o.params.radius], ['amount', o.params.amount]]) {
    if (v !== undefined) $(id).value = v;
  }
  const size = `${picture.width}x${picture.height}`;
  if ([...$('sample').options].some((opt) => opt.value === size)) $('sample').value = size;
}

function checkOptions(o) {
  for (const k of ['workers', 'tileRows', 'queue']) {
    if (!Number.isInteger(o[k]) || o[k] < 1) throw new RangeError(`${k} must be an integer >= 1, got ${o[k]}`);
  }
}

let busy = Promise.resolve();
function exclusive(job) {
  const next = busy.then(job, job);
  busy = next.catch(() => {});
  return next;
}

let lastTrace = null;

/** Draws a finished run: the output, its timeline and queue depth, the admission line. */
function show(opts, r) {
  lastTrace = r.trace;
  paint('after', picture.dst);
  shown = opts.filter;
  $('save').disabled = false;
  drawTimeline(r.trace, r.threads);
  drawDepth(r.trace);
  $('admission').textContent = {
    ringpool: `${r.trace.tiles.length} tiles in one submitAll: ${r.trace.admitted} admitted at once, ${r.trace.waited} waited for queue space`,
    'ringpool-each': `${r.trace.tiles.length} tiles: ${r.trace.admitted} admitted, ${r.trace.rejected} refused by trySubmit with QueueFullError and resubmitted with submit (waits for space)`,
    rayon: `${r.trace.tiles.length} chunks on rayon's ${r.threads} threads`,
  }[opts.mode] ?? 'one task (single-threaded mode)';
}

async function runAndShow(opts) {
  checkOptions(opts);
  setStatus(`running ${opts.filter} (${opts.mode})…`);
  await new Promise(requestAnimationFrame);
  const r = await runFilter(opts);
  show(opts, r);
  addResult(opts, r);
  setStatus(`${opts.mode}: ${r.ms.toFixed(1)} ms on ${r.threads} thread${r.threads > 1 ? 's' : ''} · checksum ${r.checksum.toString(16).padStart(8, '0')}`);
  return r;
}

function guard(job) {
  return () => exclusive(job).catch((e) => { setStatus(`${e.name}: ${e.message}`, true); });
}

window.demo = {
  ready,
  /** The last run's trace (hook or button): tiles ({worker, start, end, y0, y1}), queue depth samples, start, end. */
  trace: () => lastTrace,
  /** The pools' mode: 'shared' (cross-origin isolated) or 'message'. */
  poolMode: () => holder?.mode,
  /** A copy of the last output's RGBA bytes. */
  output: () => picture.dst.slice(),
  /** Runs one filter on the built-in sample of `width`×`height`: → { ms, checksum, threads }. */
  run: (o) => exclusive(async () => {
    await ready;
    const opts = { queue: 256, params: {}, workers: cores, tileRows: 64, ...o };
    if (opts.filter === 'blur' || opts.filter === 'sharpen') opts.params = { radius: 8, amount: 1.5, ...opts.params };
    useSample(opts.width, opts.height);
    // show: false skips drawing (and the form), so no canvas raster work overlaps the next timed run.
    if (opts.show !== false) fillForm(opts);
    const r = opts.show === false ? await runFilter(opts) : await runAndShow(opts);
    const busyMs = r.trace.tiles.reduce((sum, t) => sum + (t.end - t.start), 0);
    // Beyond {ms, checksum}: how many tiles ran and their summed run time (parallel efficiency).
    lastTrace = r.trace;
    return { ms: r.ms, checksum: r.checksum, threads: r.threads, tiles: r.trace.tiles.length, busyMs };
  }),
};

ready.then(() => {
  $('workers').value = cores;
  const [w, h] = $('sample').value.split('x').map(Number);
  useSample(w, h);
  setStatus(`ready: ${cores} cores; image ${picture.width}×${picture.height}`);
  $('make-sample').onclick = guard(async () => {
    const [sw, sh] = $('sample').value.split('x').map(Number);
    useSample(sw, sh);
    setStatus(`image ${picture.width}×${picture.height}`);
  });
  const open = async (file) => { await openFile(file); setStatus(`image ${picture.label}, ${picture.width}×${picture.height}`); };
  $('file').onchange = guard(async () => { if ($('file').files[0]) await open($('file').files[0]); });
  const stage = $('stage');
  stage.ondragover = (e) => { e.preventDefault(); stage.classList.add('dragging'); };
  stage.ondragleave = () => stage.classList.remove('dragging');
  stage.ondrop = (e) => {
    e.preventDefault();
    stage.classList.remove('dragging');
    const f = e.dataTransfer.files[0];
    if (f) guard(() => open(f))();
  };
  $('slider').oninput = () => {
    const v = $('slider').value;
    $('after').style.clipPath = `inset(0 0 0 ${v}%)`;
    $('divider').style.left = `${v}%`;
  };
  $('run').onclick = guard(() => runAndShow(formOptions()));
  // The after canvas holds the result as is (opaque pixels survive the PNG round trip exactly).
  $('save').onclick = guard(async () => {
    const blob = await new Promise((ok) => $('after').toBlob(ok, 'image/png'));
    if (!blob) throw new RangeError(`the browser could not encode a ${picture.width}×${picture.height} PNG`);
    const name = `${picture.label.replace(/\.[^.]*$/, '').replace(/[^\w-]+/g, '-')}-${shown}.png`;
    const a = Object.assign(document.createElement('a'), { href: URL.createObjectURL(blob), download: name });
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
    setStatus(`saved ${name} (${picture.width}×${picture.height})`);
  });
  // One unrecorded warm-up pass first (the engine compiles wasm in tiers and a first call can
  // run in baseline code, which would flatter whichever mode runs second), then COMPARE_ROUNDS
  // rounds in a rotated order; the table gets each mode's median run. Single runs on a busy
  // machine vary by ±20 %, far more than the parallel modes differ.
  $('compare').onclick = guard(async () => {
    const opts = formOptions();
    checkOptions(opts);
    const modes = ['wasm-single', 'js', ...(shared ? ['rayon'] : []), 'ringpool-each', 'ringpool'];
    for (const mode of modes) { setStatus(`warming up ${mode}…`); await new Promise(requestAnimationFrame); await runFilter({ ...opts, mode }); }
    const runs = Object.fromEntries(modes.map((m) => [m, []]));
    let last = null;
    for (let round = 0; round < COMPARE_ROUNDS; round++) {
      for (const mode of modes.map((_, i) => modes[(i + round) % modes.length])) {
        setStatus(`round ${round + 1} of ${COMPARE_ROUNDS}: ${mode}…`);
        await new Promise(requestAnimationFrame);
        runs[mode].push(await runFilter({ ...opts, mode }));
        last = mode;
      }
    }
    // The output buffer holds the last run's picture: make it the chosen mode's (plain JS may
    // differ from the wasm modes by a rounding step), since that is what is shown and saved.
    if (last !== opts.mode) await runFilter(opts);
    const medians = {};
    for (const mode of modes) {
      medians[mode] = [...runs[mode]].sort((a, b) => a.ms - b.ms)[COMPARE_ROUNDS >> 1];
      addResult({ ...opts, mode }, medians[mode], `${mode} (median of ${COMPARE_ROUNDS})`);
    }
    show(opts, medians[opts.mode]);
    setStatus(`compared ${modes.length} modes, ${COMPARE_ROUNDS} rounds each; the timeline shows the median ${opts.mode} run`);
  });
}, (e) => setStatus(`${e.name}: ${e.message}`, true));
