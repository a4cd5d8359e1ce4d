// One start-up in a fresh process (bench/node.mjs, scenario `fresh`): `node bench/peers/fresh.mjs
// PEER WORKERS` imports the peer's package, creates a pool, runs one no-op task and closes it,
// then prints { import, total } in ms from the first line of this script (Node's own boot
// comes before it and is the same for every peer).
const t0 = performance.now();
const { PEERS } = await import('./pools.mjs');
const [peer, workers] = [process.argv[2], Number(process.argv[3] ?? 2)];
const p = PEERS[peer];
await p.load();
const t1 = performance.now();
const pool = await p.make(workers);
await pool.run('noop', undefined);
await pool.close();
console.log(JSON.stringify({ import: t1 - t0, total: performance.now() - t0 }));
