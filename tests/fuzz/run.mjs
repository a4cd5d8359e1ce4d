// `npm run fuzz`: the codec fuzzer (tests/node/fuzz-codec.mjs) over many seeds against the
// built package in pkg/: `node tests/fuzz/run.mjs [inputs] [seed]` (default 200,000, 1).
import * as lib from '../../pkg/index.js';
import { fuzzCodec } from '../node/fuzz-codec.mjs';

const inputs = Number(process.argv[2] ?? 200_000);
const seed = Number(process.argv[3] ?? 1);
const t0 = performance.now();
const report = await fuzzCodec(lib, { inputs, seed, log: (l) => console.log(`fuzz: ${l}`) });
console.log(`codec fuzz: ${JSON.stringify({ ...report, seed, seconds: ((performance.now() - t0) / 1000).toFixed(1) })}`);
