// The resolvers of every unsettled task promise made on this thread, by a number Rust picks.
// Rust keeps only the number: no `Function` handles cross into wasm per task.
const pending = new Map();

export function taskPromise(id) {
  return new Promise((resolve, reject) => { pending.set(id, { resolve, reject }); });
}

export function settleTaskPromise(id, ok, value) {
  const p = pending.get(id);
  if (p === undefined) return;
  pending.delete(id);
  if (ok) p.resolve(value); else p.reject(value);
}

export function forgetTaskPromise(id) {
  pending.delete(id);
}
