// Type-checked against the installed package by scripts/test.sh (tsc --noEmit): what a
// TypeScript user writes must compile, and misuse must not.
import { Pool, PanicError, QueueFullError, PoolOverloadError, OutOfMemoryError, diagnostics, image, memoryBytes, type PoolStats, type TileReport, type BandPixels } from 'ringpool';

async function main(): Promise<void> {
  const pool: Pool = await Pool.create({ workers: 2, queueCapacity: 16 });
  const sum: number = await pool.trySubmit((a: number, b: number) => a + b, [2, 3]);
  const text: string = await pool.submit(async (s: string) => s.toUpperCase(), ['x'], { timeout: 100 });
  const view: Float32Array = pool.alloc(Float32Array, 8);
  await pool.trySubmit((v: Float32Array) => v.fill(1), [view], { signal: new AbortController().signal });
  pool.free(view);
  const stopped: boolean = await pool.trySubmit(async function (n: number) {
    while (n-- > 0 && !this.isCancelled()) await null;
    return this.signal.aborted;
  }, [10], { timeout: 50 });
  const spun: number = await pool.trySubmit(diagnostics.spin(1));
  const filled: number = await pool.trySubmit(diagnostics.alloc(1024));
  void filled;
  const px = pool.alloc(Uint8Array, 4 * 4 * 4), out = pool.alloc(Uint8Array, 4 * 4 * 4);
  image.sample(px, 4, 4);
  const tile: TileReport = await pool.trySubmit(image.blur(px, out, 4, 4, 1, 0, 4));
  const sum2: number = image.checksum(out) + tile.end - tile.start + spun;
  await pool.trySubmit(image.grayscale(px, 4, 4, 0, 4));
  const band: BandPixels = await pool.trySubmit(image.sobel(new Uint8Array(64), null, 4, 4, 1, 3));
  const bandBytes: Uint8Array = band.pixels;
  void bandBytes;
  // @ts-expect-error: a by-value task resolves with its pixels, not a TileReport's queue depth
  const q: number = (await pool.trySubmit(image.sobel(new Uint8Array(64), null, 4, 4, 1, 3))).queued;
  void q;
  // @ts-expect-error: blur needs a radius
  image.blur(px, out, 4, 4, 0, 4);
  const tiles: TileReport[] = await pool.submitAll([image.blur(px, out, 4, 4, 1, 0, 2), image.blur(px, out, 4, 4, 1, 2, 4)]);
  const pairs: number[] = await pool.submitAll([[(a: number) => a * 2, [1]], [(a: number) => a * 3, [2]]]);
  // @ts-expect-error: submitAll takes an array of items
  await pool.submitAll(diagnostics.noop());
  void tiles; void pairs;
  const s: PoolStats = pool.stats();
  const bytes: number = memoryBytes() + s.accepted + s.waiting + sum + text.length;
  const bounded: Pool = await Pool.create({ workers: 1, queueCapacity: 1, maxWaiting: 8 });
  try { await bounded.submit(() => 1); } catch (e) {
    if (e instanceof PoolOverloadError) { const code: 'POOL_OVERLOAD' = e.code; void code; }
  }
  await bounded.shutdown();
  // @ts-expect-error: maxWaiting must be a number
  await Pool.create({ maxWaiting: '8' });
  try { await pool.trySubmit(diagnostics.panic('x')); } catch (e) {
    if (e instanceof PanicError) { const where: string | null = e.location; void where; }
    if (e instanceof QueueFullError) { const code: 'QUEUE_FULL' = e.code; void code; }
    if (e instanceof OutOfMemoryError) { const left: number = e.maximum - e.inUse - e.needed; const code: 'OUT_OF_MEMORY' = e.code; const r: RangeError = e; void left; void code; void r; }
  }
  // @ts-expect-error: queueCapacity must be a number
  await Pool.create({ queueCapacity: 'big' });
  // @ts-expect-error: args must match the function's parameters
  await pool.trySubmit((a: number) => a, ['not a number']);
  // @ts-expect-error: the context has no such member
  await pool.trySubmit(function () { return this.cancelled; });
  await pool.shutdown({ timeout: 1000, force: false });
  void bytes; void stopped; void sum2;
}
void main;

// Task modules, argument checking and submitAll items (issue 23).
async function more(): Promise<void> {
  const pool = await Pool.create({ workers: 1, module: new URL('./tasks.mjs', import.meta.url) });
  const byName: unknown = await pool.trySubmit('add', [1, 2]);
  await pool.submit('add', [1, 2]);
  const noArgs: number = await pool.trySubmit(() => 1);
  const optional: number = await pool.trySubmit((a?: number) => a ?? 0);
  // @ts-expect-error: a function with parameters needs its args
  await pool.trySubmit((a: number, b: number) => a + b);
  // @ts-expect-error: too many arguments
  await pool.trySubmit((a: number) => a, [1, 2]);
  const [a, b, c] = await pool.submitAll([() => 1, [(s: string) => s.length, ['abc']], diagnostics.spin(0)]);
  const checked: [number, number, number] = [a, b, c];
  // @ts-expect-error: an item's args must match its function
  await pool.submitAll([[(n: number) => n * 2, ['not a number']]]);
  // @ts-expect-error: an item with parameters needs its args
  await pool.submitAll([(n: number) => n * 2]);
  await pool.submitAll(['add', ['add', [1, 2]]]);
  void byName; void noArgs; void optional; void checked;
  await pool.shutdown();
}
void more;

// An items array built with map (not a tuple): accepted, its args cannot be counted.
async function mapped(pool: Pool, files: string[]): Promise<number[]> {
  const parse = (text: string): number => text.length;
  return pool.submitAll(files.map((f) => [parse, [f]] as const));
}
void mapped;

// map, priority, broadcast, time stats and asyncDispose (issue 22).
async function features(): Promise<void> {
  await using pool = await Pool.create({ workers: 2 });
  for await (const n of pool.map((x: number) => x * 2, [1, 2, 3], { ordered: false, priority: 'high', timeout: 100 })) {
    const doubled: number = n;
    void doubled;
  }
  async function* words(): AsyncGenerator<string> { yield 'a'; }
  for await (const len of pool.map(async (w: string) => w.length, words())) { const l: number = len; void l; }
  // @ts-expect-error: the task takes a number, the inputs are strings
  pool.map((x: number) => x, ['a']);
  // @ts-expect-error: ordered is a boolean
  pool.map((x: number) => x, [1], { ordered: 'yes' });
  await pool.trySubmit(() => 1, [], { priority: 'low' });
  // @ts-expect-error: no such priority
  await pool.trySubmit(() => 1, [], { priority: 'urgent' });
  const ids: number[] = await pool.broadcast(() => 1);
  const sums: number[] = await pool.broadcast((a: number, b: number) => a + b, [1, 2]);
  // @ts-expect-error: broadcast needs the function's args
  await pool.broadcast((a: number) => a);
  const p99: number = pool.stats().runTime.p99 + pool.stats().waitTime.count;
  void ids; void sums; void p99;
}
void features;

// transfer (issue 25).
async function transfers(): Promise<void> {
  await using pool = await Pool.create({ workers: 2 });
  const a = new Uint8Array(8);
  await pool.trySubmit((x: Uint8Array) => x.length, [a], { transfer: [a.buffer] });
  // @ts-expect-error: list the buffer, not the view
  await pool.trySubmit((x: Uint8Array) => x.length, [a], { transfer: [a] });
  for await (const n of pool.map((x: Uint8Array) => x.length, [new Uint8Array(4)], { transfer: (x) => [x.buffer] })) { const k: number = n; void k; }
  // @ts-expect-error: map's transfer is a function of the input
  pool.map((x: Uint8Array) => x.length, [a], { transfer: [a.buffer] });
}
void transfers;
