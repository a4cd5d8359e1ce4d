// Task module of task-module.test.mjs: loaded once in every worker by
// `Pool.create({ module })`; its function exports are tasks by name (no eval needed).
let calls = 0;

export function add(a, b) {
  return a + b;
}

export async function later(x) {
  await new Promise((r) => setTimeout(r, 1));
  return { doubled: x * 2 };
}

export function fail(message) {
  throw new RangeError(message);
}

/** How often this worker's copy of the module ran it: module state lives per worker. */
export function count() {
  return ++calls;
}

/** Adds 1 to every element of a pool view in place (crosses by reference). */
export function bump(view) {
  for (let i = 0; i < view.length; i++) Atomics.add(view, i, 1);
  return view.length;
}

/** Spins until the task is cancelled (its timeout), then says so. */
export function untilCancelled() {
  while (!this.isCancelled()) { /* cooperative */ }
  return 'saw cancellation';
}

export const notAFunction = 42;
