// The codec fuzzer's driver (codec-fuzz.test.mjs runs a short form; `npm run fuzz` a long
// one). For each seed it builds a value (fixture-codec-gen.mjs) and sends it both ways:
// as an argument (main → worker → back as the result) and as a result built in the worker.
// The codec must return an equal copy or refuse with the exact TypeError/RangeError the
// generator predicts; nothing may throw synchronously, crash a worker or touch a prototype.
import { generate, same, prototypeFingerprint } from './fixture-codec-gen.mjs';

function fail(msg) {
  throw new Error(`codec fuzz: ${msg}`);
}

const settle = (p) => p.then((v) => ({ ok: true, v }), (v) => ({ ok: false, v }));

export async function fuzzCodec({ Pool }, { inputs, seed = 1, log = () => {} }) {
  const pool = await Pool.create({ workers: 2, queueCapacity: 16, module: new URL('./fixture-codec-gen.mjs', import.meta.url) });
  const mainPrint = prototypeFingerprint();
  const workerPrints = new Set(await Promise.all(Array.from({ length: 4 }, () => pool.submit('prototypeFingerprint'))));
  const counts = { inputs: 0, copied: 0, TypeError: 0, RangeError: 0 };

  async function one(s) {
    const g = generate(s);
    for (const [how, submit] of [['argument', () => pool.submit('echo', [g.value])], ['result', () => pool.submit('build', [s])]]) {
      let p;
      try { p = submit(); } catch (e) { fail(`seed ${s} (${how}): submit threw ${e?.stack ?? e}`); }
      const r = await settle(p);
      if (g.error) {
        if (r.ok || r.v?.name !== g.error) fail(`seed ${s} (${how}): expected ${g.error}, got ${r.ok ? 'a value' : `${r.v?.name}: ${r.v?.message}`}`);
        // The message names where: `args[0]…` for an argument, `result…` for a result.
        const path = how === 'argument' ? 'args[0]' : 'result';
        if (!String(r.v.message).startsWith(path)) fail(`seed ${s} (${how}): the ${g.error} does not name ${path}: ${r.v.message}`);
        counts[g.error]++;
      } else {
        if (!r.ok) fail(`seed ${s} (${how}): expected a copy, got ${r.v?.name}: ${r.v?.message}`);
        if (!same(r.v, g.expected)) fail(`seed ${s} (${how}): the copy differs`);
        counts.copied++;
      }
    }
    counts.inputs++;
  }

  try {
    return await run();
  } catch (e) {
    // Leave nothing running that would keep the process (or page) from finishing.
    await pool.shutdown({ force: true }).catch(() => {});
    throw e;
  }

  async function run() {
  let next = 0;
  const runner = async () => {
    while (next < inputs) {
      const i = next++;
      await one(((seed * 2654435761) ^ (i * 40503)) >>> 0);
      if (counts.inputs % 10000 === 0) log(`${counts.inputs} inputs`);
    }
  };
  await Promise.all(Array.from({ length: 8 }, runner));

  // Oversized and deeply nested payloads are refused with RangeError before they cost much.
  const big = 'x'.repeat((64 << 20) + 1);
  const bigR = await settle(pool.trySubmit('echo', [big]));
  if (bigR.ok || !(bigR.v instanceof RangeError) || !/larger than/.test(bigR.v.message)) fail(`a 64 MiB string: ${bigR.v}`);
  let deep = 0;
  for (let i = 0; i < 10000; i++) deep = { deep };
  const deepR = await settle(pool.trySubmit('echo', [deep]));
  if (deepR.ok || !(deepR.v instanceof RangeError) || !/nested deeper/.test(deepR.v.message)) fail(`10,000 levels: ${deepR.v}`);

  if (prototypeFingerprint() !== mainPrint) fail('a prototype on the main thread changed');
  const after = await Promise.all(Array.from({ length: 4 }, () => pool.submit('prototypeFingerprint')));
  if (after.some((p) => !workerPrints.has(p)) || workerPrints.size !== 1) fail('a prototype in a worker changed');
  const s = pool.stats();
  if (s.crashed !== 0) fail(`${s.crashed} workers crashed`);
  if (s.accepted !== s.completed + s.failed) fail(`invariant ${JSON.stringify(s)}`);
  // Every refusal left the pool working.
  if ((await pool.trySubmit('echo', [41])) !== 41) fail('the pool stopped working');
  await pool.shutdown();
  return { ...counts, workerCrashes: s.crashed };
  }
}
