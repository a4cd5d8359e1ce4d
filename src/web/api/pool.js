// The JS half of the `Pool` API (pool.rs): the plain objects it hands out, made in one call each
// from numbers Rust passes (not property by property with keys decoded out of shared memory),
// and the source of a submitted function.

export function makeTypedView(ctor, buffer, offset, length) {
  return new ctor(buffer, offset, length);
}

// `times`: [count, mean, p50, p90, p99, max] of run times then of wait times, in ms.
export function statsObject(workers, queueCapacity, queued, running, waiting, accepted, rejected, completed, failed, panicked, crashed, cancelled, timedOut, times) {
  const summary = (i) => ({ count: times[i], mean: times[i + 1], p50: times[i + 2], p90: times[i + 3], p99: times[i + 4], max: times[i + 5] });
  return {
    workers, queueCapacity, queued, running, waiting, accepted, rejected, completed, failed, panicked, crashed, cancelled, timedOut,
    runTime: summary(0), waitTime: summary(6),
  };
}

// The source of a submitted task function, or null for a native (bound, proxied) one.
export function functionSource(f) {
  const src = Function.prototype.toString.call(f);
  if (/\{\s*\[native code\]\s*\}\s*$/.test(src)) return null;
  return src;
}
