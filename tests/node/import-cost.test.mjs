// What `import('ringpool')` costs a Node process: it compiles and instantiates the module and
// nothing else. The glue's asynchronous init looks at the globals `Response` and `Request`,
// and the first look makes Node load its fetch (undici and zlib), ~20 ms of every import; the
// package's entry instantiates with `initSync` instead (pkg-template/index.js). Checked in a
// fresh process through Node's own list of the internal modules it loaded.
import { test } from 'node:test';
import assert from 'node:assert/strict';

// Outside Node (the browser run, Deno, Bun) the test registers as skipped, so that every
// environment reports the same list.
const skip = typeof process === 'object' && process.versions?.node && !globalThis.Deno && !globalThis.Bun && Array.isArray(process.moduleLoadList)
  ? false : 'needs Node: process.moduleLoadList';

test('importing ringpool loads none of Node\'s fetch; a pool then runs', { skip }, async () => {
  const { spawnSync } = await import('node:child_process');
  const script = `
    const before = new Set(process.moduleLoadList);
    const { Pool } = await import('ringpool');
    const loaded = process.moduleLoadList.filter((m) => !before.has(m));
    const pool = await Pool.create({ workers: 1 });
    const ran = await pool.trySubmit((x) => x + 1, [41]);
    await pool.shutdown();
    console.log(JSON.stringify({ loaded, ran }));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('.', import.meta.url), encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const { loaded, ran } = JSON.parse(r.stdout.trim().split('\n').pop());
  assert.equal(ran, 42);
  assert.ok(loaded.length > 0, 'the list records what the import loaded');
  const fetchParts = loaded.filter((m) => /undici|fetch|zlib/.test(m));
  assert.deepEqual(fetchParts, [], `the import loaded Node's fetch: ${fetchParts.join(', ')}`);
});
