// Run by deopt-in-callback.test.mjs as `node --allow-natives-syntax`: shows that the pool
// running JS mid-call (an options getter) deoptimises an optimised caller, and that the
// call completes. Prints the caller's V8 optimisation status before and after.
import { Pool } from 'ringpool';
const pool = await Pool.create({ workers: 1, queueCapacity: 64 });
const cfg = { k: 1 };
let trip = false;
const options = { get timeout() { if (trip) { trip = false; cfg.k = { not: 'a small integer' }; } return undefined; } };
function hot(i) { const p = pool.trySubmit((x) => x, [i], options); return [p, cfg.k + 1]; }
%PrepareFunctionForOptimization(hot);
for (let i = 0; i < 3; i++) await hot(i)[0];
%OptimizeFunctionOnNextCall(hot);
await hot(3)[0];
const before = %GetOptimizationStatus(hot);
trip = true;
const [p, k] = hot(4);
const after = %GetOptimizationStatus(hot);
console.log(JSON.stringify({ before, after, value: await p, k }));
await pool.shutdown();
