// Plain objects the JS `Pool` hands out, made in one call each from numbers Rust passes (not
// property by property with keys decoded out of shared memory).

export function makeTypedView(ctor, buffer, offset, length) {
  return new ctor(buffer, offset, length);
}

// `times`: [count, mean, p50, p90, p99, max] of run times then of wait times, in ms.
export function statsObject(workers, queueCapacity, queued, running, accepted, rejected, completed, failed, panicked, crashed, cancelled, timedOut, times) {
  const summary = (i) => ({ count: times[i], mean: times[i + 1], p50: times[i + 2], p90: times[i + 3], p99: times[i + 4], max: times[i + 5] });
  return {
    workers, queueCapacity, queued, running, accepted, rejected, completed, failed, panicked, crashed, cancelled, timedOut,
    runTime: summary(0), waitTime: summary(6),
  };
}
