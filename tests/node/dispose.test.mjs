// pool[Symbol.asyncDispose]() is shutdown(): `await using pool = await Pool.create()`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Pool, PoolClosedError } from 'ringpool';
import { rejection } from './helpers.mjs';

test('Symbol.asyncDispose shuts the pool down after draining what was accepted', { skip: typeof Symbol.asyncDispose !== 'symbol' && 'this engine has no Symbol.asyncDispose' }, async () => {
  const pool = await Pool.create({ workers: 1 });
  assert.equal(typeof pool[Symbol.asyncDispose], 'function');
  const accepted = pool.trySubmit(() => 'ran');
  await pool[Symbol.asyncDispose]();
  assert.equal(await accepted, 'ran');
  assert.ok(await rejection(pool.trySubmit(() => 1)) instanceof PoolClosedError);
  // A second dispose (and a plain shutdown) resolve at once.
  await pool[Symbol.asyncDispose]();
  await pool.shutdown();
});
