// pool.stats().runTime and .waitTime: { count, mean, p50, p90, p99, max } in ms over the
// pool's tasks, from a fixed log-bucket histogram (percentiles within 1/16).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool } from 'ringpool';
import { occupy } from './helpers.mjs';

// The nearest-rank percentile of `sorted` (ascending), as the histogram defines it.
const rank = (sorted, q) => sorted[Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length))) - 1];
// The pool times a body plus the worker's call around it (finding the function, decoding the
// arguments, encoding the result), so task i shows took_i + o_i with o_i >= 0. On a loaded
// machine one o_i can reach tens of ms (a preemption in there). The mean is exact (µs), so the
// o_i add up to slack = count × (mean − mean of took), and none exceeds it. An order statistic
// moves by at most the largest o_i, so each percentile lies in [took_q, took_q + slack], give or
// take the buckets' 1/16 (and µs rounding).
const within = (got, lo, hi) => got >= (lo * 15) / 16 - 0.01 && got <= ((hi * 17) / 16) + 0.01;

test('run-time percentiles match the task times the bodies measured themselves', async () => {
  const pool = await Pool.create({ workers: 2, queueCapacity: 128 });
  const empty = pool.stats().runTime;
  assert.deepEqual(empty, { count: 0, mean: 0, p50: 0, p90: 0, p99: 0, max: 0 });
  // 80 tasks of ~2 ms, 15 of ~10 ms, 5 of ~40 ms; each returns how long it really ran (a
  // loaded machine stretches them, and the expectation follows).
  const spin = (ms) => { const t0 = performance.now(); while (performance.now() - t0 < ms); return performance.now() - t0; };
  const plan = [...Array(80).fill(2), ...Array(15).fill(10), ...Array(5).fill(40)];
  const took = (await Promise.all(plan.map((ms) => pool.trySubmit(spin, [ms])))).sort((a, b) => a - b);
  const { runTime: r, waitTime: w } = pool.stats();
  const show = JSON.stringify({ r, took: [rank(took, 0.5), rank(took, 0.9), rank(took, 0.99), took.at(-1)] });
  assert.equal(r.count, 100, show);
  const tookMean = took.reduce((a, b) => a + b) / 100;
  assert.ok(r.mean >= tookMean - 0.01, `mean ${show}`);
  const slack = 100 * (r.mean - tookMean) + 0.1;
  const seen = `${show} slack ${slack.toFixed(2)} ms`;
  for (const [q, got] of [[0.5, r.p50], [0.9, r.p90], [0.99, r.p99]]) {
    assert.ok(within(got, rank(took, q), rank(took, q) + slack), `p${q * 100} ${seen}`);
  }
  // max is kept exactly (µs), not bucketed.
  assert.ok(r.max >= took.at(-1) - 0.01 && r.max <= took.at(-1) + slack, `max ${seen}`);
  assert.ok(r.p50 <= r.p90 && r.p90 <= r.p99 && r.p99 <= r.max, `order ${seen}`);
  // The three task lengths stay apart: 2 ms tasks are the median, 40 ms ones the top.
  assert.ok(r.p50 < rank(took, 0.9) && r.p99 > rank(took, 0.9), `levels ${seen}`);
  assert.equal(w.count, 100);
  await pool.shutdown();
});

test('wait time covers the time a task spent queued; JS tasks count too', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 8 });
  const { blocker, open } = await occupy(pool);
  const queued = Array.from({ length: 4 }, () => pool.trySubmit(() => 1));
  const since = performance.now();
  // Held for at least 30 ms, measured here: no guess at scheduling.
  while (performance.now() - since < 30);
  open();
  const heldFor = performance.now() - since;
  await blocker;
  await Promise.all(queued);
  const { waitTime: w, runTime: r } = pool.stats();
  assert.equal(w.count, 5, JSON.stringify(w));
  assert.ok(w.p50 >= heldFor * (15 / 16), `the queued tasks waited ~${heldFor} ms: ${JSON.stringify(w)}`);
  assert.ok(w.max >= w.p99 && w.p99 >= w.p50, JSON.stringify(w));
  assert.ok(r.max >= heldFor * (15 / 16), `the blocker ran while held: ${JSON.stringify(r)}`);
  await pool.shutdown();
});
