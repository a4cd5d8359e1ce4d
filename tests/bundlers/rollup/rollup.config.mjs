// What a Rollup user adds for ringpool: node-resolve (to find packages at all) and a plugin
// that emits the files a module names with `new URL('./file', import.meta.url)` — ringpool's
// wasm and its worker script (docs/bundlers.md).
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { importMetaAssets } from '@web/rollup-plugin-import-meta-assets';

export default {
  input: 'main.js',
  output: { dir: 'dist', format: 'es' },
  plugins: [nodeResolve({ browser: true }), importMetaAssets()],
};
