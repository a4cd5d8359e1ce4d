// The configuration docs/guide.md asks Vite users for: the two isolation headers (dev server and
// preview), and ringpool left out of dependency pre-bundling (it loads its .wasm and worker
// script relative to its own files). Vite's default worker format works for `vite build`.
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default {
  server: { headers: isolation },
  preview: { headers: isolation },
  optimizeDeps: { exclude: ['ringpool'] },
};
