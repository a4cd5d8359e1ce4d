// `node:test` for the browser run of tests/node/*.test.mjs: collects tests, run by index.html.
// `test(name, { skip: reason }, fn)` and `test.skip(name, fn)` register a skipped test, which
// the run lists by name.
export const registry = { tests: [], afters: [] };
export function test(name, options, fn) {
  if (typeof options === 'function') [options, fn] = [{}, options];
  registry.tests.push({ name, fn, skip: options?.skip ? String(options.skip === true ? 'skipped' : options.skip) : null });
}
test.skip = (name, fn) => test(name, { skip: true }, fn);
test.after = (fn) => registry.afters.push(fn);
