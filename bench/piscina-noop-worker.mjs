// The piscina side of bench/node-noop.mjs: the same no-op the ringpool side runs.
export default function noop() { return undefined; }
