// Hostile input through the argument/result codec: generated values (getters and proxies that
// throw, detached buffers, cycles, depth at the limit, __proto__ keys, class instances, lone
// surrogates, every typed array) cross both ways or are refused with the predicted error.
// Short form here; `npm run fuzz` tries 200,000 inputs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as ringpool from 'ringpool';
import { fuzzCodec } from './fuzz-codec.mjs';

test('2,000 generated values cross or are refused exactly as predicted; nothing crashes or is polluted', async () => {
  const report = await fuzzCodec(ringpool, { inputs: 2000, seed: 7 });
  assert.equal(report.inputs, 2000);
  assert.ok(report.copied > 1000 && report.TypeError > 50 && report.RangeError > 20, JSON.stringify(report));
});
