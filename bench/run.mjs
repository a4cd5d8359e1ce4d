// `npm run bench`: every scenario of bench/README.md in one run on this machine: native ring
// (criterion), Node pools, browser pools, the demo's blur in all four modes. Prints tables and
// the target ratios, writes bench/results.json, SVG charts in bench/charts/, and the results
// section of bench/README.md. ROUNDS overrides the rounds of the Node and browser scenarios.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { bars, lines } from './svg.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const sh = (cmd, args, opts = {}) => (execFileSync(cmd, args, { cwd: root, encoding: 'utf8', ...opts }) ?? '').trim();
const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

const machine = {
  date: new Date().toISOString(),
  commit: (() => { try { return sh('git', ['rev-parse', '--short', 'HEAD']); } catch { return 'unknown'; } })(),
  cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.availableParallelism(), memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  os: `${os.type()} ${os.release()}`, node: process.version,
  rustc: sh('rustc', ['--version']),
};
console.log(`machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os}; Node ${machine.node}; ${machine.rustc}; commit ${machine.commit}`);

// 1. Native: criterion over the ring, ArrayQueue and sync_channel.
console.log('\n== native: cargo bench --bench ring (criterion) ==');
sh('cargo', ['bench', '--quiet', '--bench', 'ring'], { stdio: 'inherit', env: { ...process.env, RING_PAIRED: '1' } });
// The ratios the targets use: ringpool and ArrayQueue timed in alternating rounds (benches/ring.rs).
const paired = JSON.parse(readFileSync(here('../target/criterion/paired.json'), 'utf8'));
const estimate = (group, name) => {
  const e = JSON.parse(readFileSync(here(`../target/criterion/${group}/${name}/new/estimates.json`), 'utf8'));
  return e.median.point_estimate; // ns per iteration
};
const native = {};
for (const [group, perIter] of [['uncontended', 1000], ['2p2c', 100_000]]) {
  native[group] = {};
  for (const [label, dir] of [['ringpool', 'ringpool'], ['crossbeam ArrayQueue', 'crossbeam ArrayQueue'], ['std sync_channel', 'std sync_channel']]) {
    native[group][label] = estimate(group, dir) / perIter;
  }
}
console.table(Object.fromEntries(Object.entries(native).map(([g, v]) => [g, {
  'ringpool ns/op': v.ringpool.toFixed(2), 'ArrayQueue ns/op': v['crossbeam ArrayQueue'].toFixed(2), 'sync_channel ns/op': v['std sync_channel'].toFixed(2),
  'ringpool / ArrayQueue': ratio(v.ringpool, v['crossbeam ArrayQueue']), 'ringpool / ArrayQueue (paired)': `${paired[g].toFixed(2)}×`,
  'ringpool / sync_channel': ratio(v.ringpool, v['std sync_channel']),
}])));

// 2. Node pools.
console.log('\n== node: ringpool vs piscina, tinypool, workerpool ==');
const node = await (await import('./node.mjs')).run();

// 3. Browser pools.
console.log('\n== browser: ringpool vs workerpool vs a postMessage pool ==');
const browser = await (await import('./browser.mjs')).run();

// 3b. Message mode: a page without isolation headers, ringpool vs workerpool.
console.log('\n== browser, message mode: ringpool vs workerpool on a page without isolation headers ==');
const message = await (await import('./message.mjs')).run();

// 4. The demo's blur in all four modes (one page load).
console.log('\n== demo: 4096×4096 blur radius 8 via window.demo.run ==');
sh(process.execPath, ['bench/demo.mjs'], { stdio: 'inherit' });
const demo = JSON.parse(readFileSync(here('./out/demo.json'), 'utf8'));

// Targets.
const sc = Object.fromEntries(node.scenarios.map((s) => [s.name, s.results]));
const noop = sc.noop;
const targets = [
  ['Node no-op throughput vs piscina', noop.ringpool.tasksPerSec / noop.piscina.tasksPerSec, '≥ 2× (stretch 5×)', (r) => r >= 2],
  ['Node no-op p50 latency vs piscina', noop.ringpool.p50us / noop.piscina.p50us, '≤ 1.0×', (r) => r <= 1],
  ['Node no-op throughput vs workerpool', noop.ringpool.tasksPerSec / noop.workerpool.tasksPerSec, '≥ 5×', (r) => r >= 5],
  ['Browser no-op throughput vs workerpool', browser.results['ringpool (JS fn)'].tasksPerSec / browser.results.workerpool.tasksPerSec, '≥ 3×', (r) => r >= 3],
  ['Ring per op vs ArrayQueue (uncontended)', paired.uncontended, '≤ 1.2×', (r) => r <= 1.2],
  ['Ring per op vs ArrayQueue (2P/2C)', paired['2p2c'], '≤ 1.2×', (r) => r <= 1.2],
  // Paired within rounds (bench/demo.mjs): the machine's speed drifts more than these differ.
  ['Demo blur: ringpool vs wasm one thread', demo.speedups['wasm-single'], `≥ 0.8 × cores = ${0.8 * demo.cores}`, (r) => r >= 0.8 * demo.cores],
  // Its own ABBA pairs: met when the whole 95 % interval of the median is at or above 1.0.
  ['Demo blur: ringpool vs wasm-bindgen-rayon', demo.vsRayon.median, `≥ 1.0× (${demo.vsRayon.n} pairs, 95 % interval ${demo.vsRayon.lo.toFixed(3)}–${demo.vsRayon.hi.toFixed(3)})`, () => demo.vsRayon.lo >= 1, demo.vsRayon.verdict],
  ['Demo blur: ringpool vs plain JS', demo.speedups.js, '≥ 5×', (r) => r >= 5],
  // Issue 25: buffers, CPU tasks, round trips at every worker count, start-up.
  ...[['args', ''], ['argsread', ', body reads every byte']].flatMap(([scenario, what]) => [256 * 1024, 1024 * 1024].map((n) => {
    const r = sc[`${scenario}-${n}`];
    const best = Math.max(r.ringpool.tasksPerSec, r['ringpool (transfer)'].tasksPerSec);
    // The bare reference (no pool, one postMessage each way) shows how far any pool can go.
    const floor = r['bare worker_threads'] ? ` (bare worker_threads, no pool: ${(r['bare worker_threads'].tasksPerSec / r.piscina.tasksPerSec).toFixed(2)}×)` : '';
    return [`Node ${n / 1024} KiB argument${what} vs piscina (best of by value / transfer)`, best / r.piscina.tasksPerSec, `≥ 1.5×${floor}`, (x) => x >= 1.5];
  })),
  ...[256 * 1024, 1024 * 1024].map((n) => {
    const r = browser.payload.arg[n];
    return [`Chromium ${n / 1024} KiB argument vs workerpool (best of by value / transfer)`, Math.max(r.ringpool, r['ringpool (transfer)']) / r.workerpool, '≥ 1.5×', (x) => x >= 1.5];
  }),
  ...Object.entries(message.rows).map(([row, v]) => [`Chromium message mode (no isolation headers) ${row} vs workerpool`, v.ringpool / v.workerpool, '≥ 1.0×', (r) => r >= 1]),
  ['Node ~100 µs CPU tasks vs piscina', sc.cpu.ringpool.tasksPerSec / sc.cpu.piscina.tasksPerSec, '≥ 2×', (r) => r >= 2],
  ['Node ~40 µs CPU tasks vs piscina', sc.cpu40.ringpool.tasksPerSec / sc.cpu40.piscina.tasksPerSec, '≥ 2×', (r) => r >= 2],
  ...node.roundtrip.workers.map((w, i) => [`Node round trip p50 vs piscina, ${w} worker${w > 1 ? 's' : ''}`,
    node.roundtrip.results.ringpool[i].p50 / node.roundtrip.results.piscina[i].p50, '≤ 0.5×', (r) => r <= 0.5]),
  ['Node start-up (create → first result → shutdown) vs piscina', node.startup.ringpool / node.startup.piscina, '≤ 1.0×', (r) => r <= 1],
  ['Node start-up in a fresh process, with the import, vs piscina', node.fresh.ringpool.total / node.fresh.piscina.total, '≤ 1.0×', (r) => r <= 1],
].map(([name, value, target, ok, verdict]) => ({ name, value, target, met: ok(value), verdict: ok(value) ? 'met' : verdict ?? 'not met' }));
console.log('\n== targets ==');
for (const t of targets) console.log(`${t.met ? 'met    ' : 'NOT MET'}  ${t.name}: ${t.value.toFixed(2)}× (target ${t.target})${t.met ? '' : `: ${t.verdict}`}`);

// Files.
const results = { machine, native, nativePaired: paired, node, browser, message, demo, targets };
writeFileSync(here('./results.json'), JSON.stringify(results, null, 2) + '\n');
mkdirSync(here('./charts/'), { recursive: true });
const chart = (file, svg) => writeFileSync(here(`./charts/${file}`), svg + '\n');
const barsOf = (res, key) => Object.entries(res).map(([label, v]) => ({ label, value: v[key] }));
chart('node-noop.svg', bars({ title: `Node: no-op tasks/s (${node.cores} workers, 64 in flight)`, unit: 'tasks per second, higher is better', rows: barsOf(noop, 'tasksPerSec'), note: `Node ${node.node}` }));
chart('node-latency.svg', bars({ title: 'Node: no-op round trip p50', unit: 'microseconds, lower is better', rows: barsOf(noop, 'p50us') }));
chart('node-cpu.svg', bars({ title: 'Node: ~100 µs CPU tasks/s', unit: 'tasks per second, higher is better', rows: barsOf(sc.cpu, 'tasksPerSec') }));
chart('node-bytes.svg', bars({ title: 'Node: tasks/s with a 1 MiB Uint8Array argument', unit: 'tasks per second, higher is better', rows: barsOf(sc.bytes, 'tasksPerSec') }));
chart('node-scaling.svg', lines({ title: 'Node: ~100 µs CPU tasks/s by worker count', unit: 'tasks per second', xs: node.scaling.workers, series: node.scaling.results, xlabel: 'workers' }));
chart('browser-noop.svg', bars({ title: `Chromium: no-op tasks/s (${browser.workers} workers, 64 in flight)`, unit: 'tasks per second, higher is better', rows: barsOf(browser.results, 'tasksPerSec') }));
chart('demo-blur.svg', bars({ title: `Demo: ${demo.size}×${demo.size} Gaussian blur r=${demo.radius}`, unit: 'milliseconds, lower is better', rows: Object.entries(demo.medians).map(([label, value]) => ({ label, value })) }));
chart('ring.svg', bars({ title: 'Ring: ns per operation (2 producers / 2 consumers)', unit: 'nanoseconds, lower is better', rows: Object.entries(native['2p2c']).map(([label, value]) => ({ label, value })) }));

// The generated section of bench/README.md.
const table = (head, rows) => [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
const nodeTable = (res, base = 'piscina') => table(['peer', 'tasks/s', `vs ${base}`, 'p50 µs', 'p99 µs'],
  Object.entries(res).map(([k, v]) => [k, Math.round(v.tasksPerSec).toLocaleString('en-US'), ratio(v.tasksPerSec, res[base].tasksPerSec), v.p50us?.toFixed(1) ?? '—', v.p99us?.toFixed(1) ?? '—']));
const section = `<!-- results:start (written by bench/run.mjs) -->
Run of ${machine.date.slice(0, 10)} on ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ${machine.os};
Node ${machine.node}, Chromium ${browser.chromium}, ${machine.rustc}; commit \`${machine.commit}\`.

**Targets**

${table(['target', 'measured', 'wanted', ''], targets.map((t) => [t.name, `${t.value.toFixed(2)}×`, t.target, t.met ? 'met' : `**${t.verdict}**`]))}

**Node, no-op task** (${node.cores} workers, 64 in flight)

${nodeTable(noop)}

**Node, object result** (\`record(i)\`: six keys and a nested array; ${node.cores} workers, 64 in flight)

${nodeTable(sc.record)}

**Node, ~100 µs CPU task** (\`cpu(${node.cpuIterations})\`)

${nodeTable(sc.cpu)}

**Node, ~40 µs CPU task** (\`cpu(${node.cpu40.iterations})\`; with no pool at all, ${node.cores} cores running the ${node.cpu40.bodyUs.toFixed(1)} µs body back to back would do ${Math.round(node.cpu40.limit).toLocaleString('en-US')} tasks/s: ringpool reaches ${(100 * sc.cpu40.ringpool.tasksPerSec / node.cpu40.limit).toFixed(0)} % of that)

${nodeTable(sc.cpu40)}

**Node, 1 MiB Uint8Array argument** (16 in flight)

${nodeTable(sc.bytes)}

**Node, buffer arguments** (a new \`Uint8Array\` per task, 64 in flight; the peers pass it in their transfer lists; the body reads its length, first and last byte), tasks/s

${table(['size', ...Object.keys(sc['args-65536'])], [65536, 262144, 1048576, 4194304].map((n) => [`${n / 1024} KiB`, ...Object.values(sc[`args-${n}`]).map((v) => `${Math.round(v.tasksPerSec).toLocaleString('en-US')} (${ratio(v.tasksPerSec, sc[`args-${n}`].piscina.tasksPerSec)})`)]))}

**Node, buffer arguments read whole** (the same, but the body sums every byte), tasks/s

${table(['size', ...Object.keys(sc['argsread-65536'])], [65536, 262144, 1048576, 4194304].map((n) => [`${n / 1024} KiB`, ...Object.values(sc[`argsread-${n}`]).map((v) => `${Math.round(v.tasksPerSec).toLocaleString('en-US')} (${ratio(v.tasksPerSec, sc[`argsread-${n}`].piscina.tasksPerSec)})`)]))}

**Node, buffer results** (the task makes and returns a \`Uint8Array\`, 64 in flight), tasks/s

${table(['size', ...Object.keys(sc['results-65536'])], [65536, 262144, 1048576, 4194304].map((n) => [`${n / 1024} KiB`, ...Object.values(sc[`results-${n}`]).map((v) => `${Math.round(v.tasksPerSec).toLocaleString('en-US')} (${ratio(v.tasksPerSec, sc[`results-${n}`].piscina.tasksPerSec)})`)]))}

**Node, single-task round trips** (no-op, one at a time), µs

${table(['peer', ...node.roundtrip.workers.flatMap((w) => [`${w}w p50`, `${w}w p99`])], Object.entries(node.roundtrip.results).map(([k, xs]) => [k, ...xs.flatMap((x) => [x.p50.toFixed(1), x.p99.toFixed(1)])]))}

**Node, start-up** (\`Pool.create\` → first no-op result → shutdown, ${node.cores} workers), median ms

${table(['peer', 'ms', 'vs piscina'], Object.entries(node.startup).map(([k, ms]) => [k, ms.toFixed(1), ratio(ms, node.startup.piscina)]))}

**Node, start-up in a fresh process** (a new \`node\` each time: import the package → create → first no-op result → shutdown, ${node.cores} workers; process wall also counts Node's boot and exit), median ms

${table(['peer', 'import', 'import + run', 'vs piscina', 'process wall'], Object.entries(node.fresh).map(([k, v]) => [k, v.import.toFixed(1), v.total.toFixed(1), ratio(v.total, node.fresh.piscina.total), v.wall.toFixed(1)]))}

**Node, scaling** (~100 µs CPU task, tasks/s)

${table(['peer', ...node.scaling.workers.map((w) => `${w} worker${w > 1 ? 's' : ''}`)], Object.entries(node.scaling.results).map(([k, xs]) => [k, ...xs.map((x) => Math.round(x).toLocaleString('en-US'))]))}

**Chromium, no-op task** (${browser.workers} workers, 64 in flight)

${nodeTable(browser.results, 'workerpool')}

**Chromium, message mode** (a page served without isolation headers, so \`crossOriginIsolated\` is false and ringpool posts each task; ${message.workers} workers, 64 in flight; the transfer bodies sum every byte; ~40 µs = ${message.workRounds} rounds of an LCG), tasks/s

${table(['task', 'ringpool', 'workerpool', 'ringpool / workerpool'], Object.entries(message.rows).map(([row, v]) => [row, Math.round(v.ringpool).toLocaleString('en-US'), Math.round(v.workerpool).toLocaleString('en-US'), ratio(v.ringpool, v.workerpool)]))}

What message mode costs in download: no file of its own (its worker half is bundled into \`ringpool.js\`, its owner half is in the wasm): all of it is in the package's ${message.download.packageGzip.toLocaleString('en-US')} B gzip JS and wasm. One build serves both modes: the engines create the module's shared memory on a page without isolation too, so no second, non-shared build is needed; a message-mode worker fetches nothing more for JS tasks and instantiates the module once, for its first Rust task.

**Demo** (${demo.size}×${demo.size}, Gaussian blur radius ${demo.radius}, tiles of ${demo.tileRows} rows, ${demo.cores} cores; ${demo.rounds} rounds, js ${demo.jsRounds}; speed-ups are medians of ratios within a round)

${table(['mode', 'runs', 'median ms', 'ringpool speed-up'], Object.entries(demo.medians).map(([k, v]) => [k, demo.times[k].length, v.toFixed(1), `${demo.speedups[k].toFixed(2)}×`]))}

**Demo, ringpool vs wasm-bindgen-rayon** (${demo.vsRayon.n} pairs in ABBA order after the rounds above, same page; the target is met when the whole interval is at or above 1.0): median paired ratio **${demo.vsRayon.median.toFixed(3)}×**, 95 % bootstrap interval ${demo.vsRayon.lo.toFixed(3)}–${demo.vsRayon.hi.toFixed(3)}, ringpool faster in ${(100 * demo.vsRayon.above).toFixed(0)} % of pairs; medians ${demo.vsRayon.medians.ringpool.toFixed(1)} ms vs ${demo.vsRayon.medians.rayon.toFixed(1)} ms: ${demo.vsRayon.verdict}

**Demo, tile height sweep** (ringpool vs rayon; ${demo.sweepRounds} rounds per height, paired)

${table(['tile rows', 'tiles', 'ringpool ms', 'ringpool-each ms', 'rayon ms', 'ringpool vs rayon', 'ringpool-each vs rayon'], demo.sweep.map((w) => [w.tileRows, w.tiles, w.medians.ringpool.toFixed(1), w.medians['ringpool-each'].toFixed(1), w.medians.rayon.toFixed(1), `${w.speedups.rayon.toFixed(2)}×`, `${w.eachVsRayon.toFixed(2)}×`]))}

**Native ring** (capacity 256; criterion's ns per operation, and the ratio to ArrayQueue both from criterion and as the median of ${paired.rounds} alternating rounds, which the targets use)

${table(['scenario', 'ringpool', 'crossbeam ArrayQueue', 'std sync_channel', 'ringpool / ArrayQueue', 'ringpool / ArrayQueue, paired'], Object.entries(native).map(([g, v]) => [g, v.ringpool.toFixed(2), v['crossbeam ArrayQueue'].toFixed(2), v['std sync_channel'].toFixed(2), ratio(v.ringpool, v['crossbeam ArrayQueue']), `${paired[g].toFixed(2)}×`]))}

![Node no-op](charts/node-noop.svg) ![Node scaling](charts/node-scaling.svg) ![Chromium no-op](charts/browser-noop.svg) ![Demo blur](charts/demo-blur.svg)
<!-- results:end -->`;
const readme = readFileSync(here('./README.md'), 'utf8');
writeFileSync(here('./README.md'), readme.replace(/<!-- results:start[\s\S]*<!-- results:end -->/, section));
console.log('\nwrote bench/results.json, bench/charts/*.svg and the results section of bench/README.md');
