// `Pool.create({ module })`: every worker imports the ES module; `trySubmit('name', args)`
// calls that export. This is the no-eval path for pages whose CSP forbids 'unsafe-eval'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool } from 'ringpool';
import { assertInvariant, needsShared, rejection } from './helpers.mjs';

const moduleUrl = new URL('./fixture-tasks.mjs', import.meta.url);
const pool = await Pool.create({ workers: 2, queueCapacity: 16, module: moduleUrl });
test.after(() => pool.shutdown());

test('exports run by name, sync and async, with values crossing both ways', async () => {
  assert.equal(await pool.trySubmit('add', [2, 3]), 5);
  assert.deepEqual(await pool.trySubmit('later', [21]), { doubled: 42 });
  const err = await rejection(pool.trySubmit('fail', ['bad pixel']));
  assert.ok(err instanceof RangeError);
  assert.equal(err.message, 'bad pixel');
  assertInvariant(pool);
});

test('the module is loaded once per worker and keeps its state', async () => {
  const counts = [];
  for (let i = 0; i < 8; i++) counts.push(await pool.submit('count'));
  // Two workers, each counting its own calls: the counts are 1.. per worker, never reset.
  const total = counts.reduce((a, b) => a + b, 0);
  assert.ok(Math.max(...counts) >= 4, JSON.stringify(counts));
  assert.ok(total >= 8 + 4, JSON.stringify(counts));
});

test('a pool view crosses by reference into an export', { skip: needsShared('pool.alloc') }, async () => {
  const view = pool.alloc(Int32Array, 16);
  assert.equal(await pool.trySubmit('bump', [view]), 16);
  assert.equal(await pool.trySubmit('bump', [view]), 16);
  assert.deepEqual([...view], new Array(16).fill(2));
  pool.free(view);
});

test('exports see cancellation through this.isCancelled()', { skip: needsShared('a synchronous export sees isCancelled() turn only through memory it shares with the pool') }, async () => {
  const err = await rejection(pool.trySubmit('untilCancelled', [], { timeout: 30 }));
  assert.equal(err.code, 'TIMEOUT');
  // The worker came back: the next task runs.
  assert.equal(await pool.trySubmit('add', [1, 1]), 2);
});

test('unknown names and non-function exports are a TypeError naming the exports', async () => {
  for (const name of ['nope', 'notAFunction']) {
    const err = await rejection(pool.trySubmit(name, []));
    assert.ok(err instanceof TypeError);
    assert.match(err.message, new RegExp(`no function export named "${name}"`));
    // Every function export, sorted, and nothing else (notAFunction is not one).
    assert.match(err.message, /\(its function exports: add, bump, count, fail, later, untilCancelled\)$/);
  }
  assert.equal(await pool.trySubmit('add', [4, 5]), 9);
});

test('a name without a task module, and a bad module option, are TypeErrors', async () => {
  const plain = await Pool.create({ workers: 1 });
  const err = await rejection(plain.trySubmit('add', [1, 2]));
  assert.ok(err instanceof TypeError);
  assert.match(err.message, /Pool\.create\(\{ module: url \}\)/);
  await plain.shutdown();
  for (const bad of [42, '', null, {}]) {
    const e = await rejection(Pool.create({ workers: 1, module: bad }));
    assert.ok(e instanceof TypeError, `${bad}: ${e}`);
    assert.match(e.message, /module/);
  }
});

test('JS-function tasks still work on a pool with a task module', async () => {
  assert.equal(await pool.trySubmit((a) => a * 3, [5]), 15);
  assertInvariant(pool);
});
