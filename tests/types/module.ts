// Type-checked by scripts/test.sh (tsc --noEmit): a pool made with its task module's type
// checks each export name, its arguments and its result; without the type, names are strings.
import { Pool } from 'ringpool';
import type * as Tasks from './tasks.js';

async function typed(): Promise<void> {
  const pool = await Pool.create<typeof Tasks>({ module: new URL('./tasks.js', import.meta.url) });
  const n: number = await pool.trySubmit('add', [1, 2]);
  const u: string = await pool.submit('upper', ['x'], { timeout: 100 });
  const t: number = await pool.trySubmit('now');
  const g: string = await pool.trySubmit('greet') + await pool.trySubmit('greet', ['me']);
  void n; void u; void t; void g;
  // @ts-expect-error: no such export
  await pool.trySubmit('missing', []);
  // @ts-expect-error: VERSION is not a function
  await pool.trySubmit('VERSION');
  // @ts-expect-error: add takes two numbers
  await pool.trySubmit('add', ['1', 2]);
  // @ts-expect-error: add needs its arguments
  await pool.submit('add');
  // @ts-expect-error: upper resolves with a string
  const wrong: number = await pool.submit('upper', ['x']);
  void wrong;
  const all: [number, string, number] = await pool.submitAll([['add', [1, 2]], ['upper', ['y']], 'now']);
  void all;
  // @ts-expect-error: an item's arguments are checked too
  await pool.submitAll([['add', ['no', 1]]]);
  // @ts-expect-error: and its name
  await pool.submitAll([['nope', []]]);
  // @ts-expect-error: an item that names an export with parameters needs its arguments
  await pool.submitAll(['add']);
  for await (const r of pool.map('upper', ['a', 'b'])) { const s: string = r; void s; }
  // @ts-expect-error: map's inputs are the export's first argument
  pool.map('upper', [1, 2]);
  const each: number[] = await pool.broadcast('now');
  void each;
  // @ts-expect-error: broadcast checks the arguments too
  await pool.broadcast('add', ['x', 1]);
  const byFunction: number = await pool.trySubmit((a: number) => a * 2, [2]);
  void byFunction;
  await pool.shutdown();
}

async function untyped(): Promise<void> {
  const pool = await Pool.create({ module: new URL('./tasks.js', import.meta.url) });
  const anything: unknown = await pool.trySubmit('whatever', [1, 'two']);
  const items: unknown[] = await pool.submitAll([['add', [1, 2]], 'now']);
  // @ts-expect-error: without the module's type, a result is unknown
  const n: number = await pool.trySubmit('add', [1, 2]);
  void anything; void items; void n;
  await pool.shutdown();
}
void typed; void untyped;
