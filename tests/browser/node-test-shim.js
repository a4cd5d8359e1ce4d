// `node:test` for the browser run of tests/node/*.test.mjs: collects tests, run by index.html.
export const registry = { tests: [], afters: [] };
export function test(name, fn) { registry.tests.push({ name, fn }); }
test.after = (fn) => registry.afters.push(fn);
