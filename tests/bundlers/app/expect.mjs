// What tests/bundlers/app/main.js must have put in window.__result, whichever bundler built it.
import assert from 'node:assert/strict';

export function checkResult(result) {
  assert.equal(result.error, undefined, result.error);
  assert.equal(result.mode, 'shared');
  assert.equal(result.sum, 5);
  assert.equal(result.submitted, 42);
  assert.deepEqual(result.mapped, [1, 4, 9, 16]);
  assert.equal(result.panic, 'boom');
  assert.deepEqual(result.workers, [0, 1], 'both workers ran');
  assert.equal(result.ok, true);
}
