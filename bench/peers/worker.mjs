// Worker script for piscina and tinypool: named exports, called with `{ name }`.
export { noop, cpu, bytes, sum, record, made } from '../tasks.mjs';
