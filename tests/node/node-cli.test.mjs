// However a Node script is run, its pool's workers start: `node -e`, `--input-type=module`
// (with -e, or a module piped into stdin), which worker_threads would inherit and refuse, and
// next to V8 or per-process options, which an explicit worker option list may not hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';

// Outside Node (the browser run) the same tests register as skipped, so that every
// environment reports the same list.
const skip = typeof process === 'object' && process.versions?.node ? false : 'needs Node: its command line';
{
  const esm = `
    import { Pool } from 'ringpool';
    const pool = await Pool.create({ workers: 2 });
    console.log((await Promise.all([1, 2, 3].map((x) => pool.trySubmit((x) => x * x, [x])))).join(','));
    await pool.shutdown();`;
  const cjs = `import('ringpool').then(async ({ Pool }) => {
    const pool = await Pool.create({ workers: 2 });
    console.log((await Promise.all([1, 2, 3].map((x) => pool.trySubmit((x) => x * x, [x])))).join(','));
    await pool.shutdown();
  });`;
  const runs = {
    'node -e (CommonJS, dynamic import)': { args: ['-e', cjs] },
    'node --input-type=module -e': { args: ['--input-type=module', '-e', esm] },
    'node --input-type module -e': { args: ['--input-type', 'module', '-e', esm] },
    'a module piped into node --input-type=module': { args: ['--input-type=module'], input: esm },
    'node -e with V8 options': { args: ['--max-old-space-size=512', '--stack-size=900', '-e', cjs] },
    'node --input-type=module -e with V8 options': { args: ['--max-old-space-size=512', '--stack-size=900', '--input-type=module', '-e', esm] },
    'node with V8 and per-process options, module on stdin': { args: ['--max-old-space-size=512', '--title=ringpool-test', '--input-type=module'], input: esm },
  };
  for (const [name, { args, input }] of Object.entries(runs)) {
    test(`${name}: the workers start and run tasks`, { skip }, async () => {
      const { spawnSync } = await import('node:child_process');
      const r = spawnSync(process.execPath, args, { cwd: new URL('.', import.meta.url), input, encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.stdout.trim(), '1,4,9', r.stderr);
      assert.equal(r.status, 0);
    });
  }

  test('require() refuses the package with ERR_REQUIRE_ASYNC_MODULE, as the README says (use import())', { skip }, async () => {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, ['-e', "try { require('ringpool'); console.log('loaded') } catch (e) { console.log(e.code) }"],
      { cwd: new URL('.', import.meta.url), encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.stdout.trim(), 'ERR_REQUIRE_ASYNC_MODULE', r.stderr);
  });
}
