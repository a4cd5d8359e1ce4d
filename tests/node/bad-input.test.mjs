// Bad input gets a TypeError/RangeError naming the problem; the pool keeps working.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, diagnostics } from 'ringpool';
import { assertInvariant, rejection } from './helpers.mjs';

test('Pool.create rejects bad sizes with RangeError/TypeError naming the option', async () => {
  for (const [options, Ctor, word] of [
    [{ workers: 0 }, RangeError, 'workers'],
    [{ workers: 1.5 }, RangeError, 'workers'],
    [{ workers: 'four' }, TypeError, 'workers'],
    [{ workers: 100000 }, RangeError, 'workers'],
    [{ queueCapacity: 0 }, RangeError, 'queueCapacity'],
    [{ queueCapacity: -3 }, RangeError, 'queueCapacity'],
    [{ queueCapacity: NaN }, RangeError, 'queueCapacity'],
    [42, TypeError, 'options'],
  ]) {
    const err = await rejection(Pool.create(options));
    assert.ok(err instanceof Ctor, `${JSON.stringify(options)} → ${err}`);
    assert.match(err.message, new RegExp(word));
  }
});

test('trySubmit of a non-task rejects with TypeError; the next task still runs', async () => {
  const pool = await Pool.create({ workers: 1, queueCapacity: 2 });
  for (const bad of [42, 'nope', {}, null, undefined]) {
    const err = await rejection(pool.trySubmit(bad));
    assert.ok(err instanceof TypeError, String(err));
    assert.match(err.message, /task/);
  }
  const t = diagnostics.noop();
  await pool.trySubmit(t);
  const reused = await rejection(pool.trySubmit(t));
  assert.ok(reused instanceof TypeError, 'a consumed Task cannot be submitted twice');
  assert.match(reused.message, /^task was already submitted: a Task runs once/);
  assert.equal(await pool.trySubmit(diagnostics.spin(0)) >= 0, true);
  assertInvariant(pool);
  await pool.shutdown();
});
