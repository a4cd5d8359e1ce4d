import assert from 'node:assert/strict';

/** `accepted = completed + failed + queued + running`, once the pool is quiet. */
export function assertInvariant(pool) {
  const s = pool.stats();
  assert.equal(s.accepted, s.completed + s.failed + s.queued + s.running, JSON.stringify(s));
  return s;
}

/** The rejection reason of `promise` (fails if it fulfils). */
export async function rejection(promise) {
  try {
    const v = await promise;
    assert.fail(`expected a rejection, got ${v}`);
  } catch (e) {
    if (e instanceof assert.AssertionError) throw e;
    return e;
  }
}
