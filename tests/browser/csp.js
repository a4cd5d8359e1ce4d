// A page whose CSP forbids 'unsafe-eval' (and inline scripts): tasks by export name of a
// task module and Rust tasks work; a JS-function task (compiled like eval) is refused with an
// error that says what to do instead. Results go to window.__csp for tests/browser/run.mjs.
const violations = [];
document.addEventListener('securitypolicyviolation', (e) => violations.push(`${e.violatedDirective}: ${e.blockedURI}`));
const out = {};
try {
  const { Pool, image } = await import('../../pkg/index.js');
  const pool = await Pool.create({ workers: 2, module: new URL('./csp-tasks.js', import.meta.url) });
  out.named = await pool.trySubmit('add', [2, 3]);
  const view = pool.alloc(Float64Array, 4);
  view.set([1, 2, 3, 4]);
  out.view = await pool.trySubmit('sumView', [view]);
  const px = pool.alloc(Uint8Array, 4 * 4 * 2);
  image.sample(px, 4, 2);
  await pool.trySubmit(image.grayscale(px, 4, 2, 0, 2));
  out.gray = px[0] === px[1] && px[1] === px[2];
  try {
    out.jsFunction = await pool.trySubmit((a) => a, [1]);
  } catch (e) {
    out.jsFunctionError = `${e.name}: ${e.message}`;
  }
  await pool.shutdown();
  out.violationsBeforeProbe = violations.length;
  try { new Function('return 1'); out.evalAllowed = true; } catch { out.evalAllowed = false; }
} catch (e) {
  out.error = String(e?.stack ?? e);
}
window.__csp = out;
