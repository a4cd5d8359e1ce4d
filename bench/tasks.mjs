// The task bodies every peer runs, so each pool does the same work. Each takes one argument
// (piscina and tinypool pass one task value). ringpool receives them as source (they are
// self-contained); piscina/tinypool/workerpool import them in their worker scripts.
export function noop() {}

/** Integer mixing for `n` iterations: calibrated by the bench to take about 100 µs. */
export function cpu(n) {
  let x = 0;
  for (let i = 0; i < n; i++) x = (Math.imul(x, 31) + i) | 0;
  return x;
}

/** A small record, the kind of result a task usually returns: six keys, a nested array. */
export function record(i) {
  return { id: i, name: 'tile', x: 1.5, y: 2.5, ok: true, tags: ['a', 'b'] };
}

/** Touches a typed array argument (first, last, length), so it must have arrived. */
export function bytes(a) {
  return a.length + a[0] + a[a.length - 1];
}

/** Reads every byte of a typed array argument, as a body that uses its input does. */
export function sum(a) {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i];
  return s;
}

/** A fresh `n`-byte Uint8Array as a result (first byte 1): what a result costs to send back. */
export function made(n) {
  const a = new Uint8Array(n);
  a[0] = 1;
  return a;
}
