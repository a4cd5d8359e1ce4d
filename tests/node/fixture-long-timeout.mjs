// Run as a script by timeout-lifetime.test.mjs: one task with a 10-minute timeout, then shutdown.
// The process should exit right after, not when the timeout would have expired.
import { Pool } from 'ringpool';

const pool = await Pool.create({ workers: 1 });
console.log(await pool.trySubmit((x) => x * 6, [7], { timeout: 600_000 }));
await pool.shutdown();
