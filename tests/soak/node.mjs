// The soaks in Node, against the built package in pkg/: `node tests/soak/node.mjs [tasks]`
// (default 1,000,000) runs the mixed-outcome soak (soak.mjs); `node tests/soak/node.mjs
// pressure [tasks]` (default 2,000) the memory-pressure soak (pressure.mjs). Prints progress
// and a JSON report; exits 1 on any violation.
import * as lib from '../../pkg/index.js';
import { soak } from './soak.mjs';
import { pressureSoak } from './pressure.mjs';

const pressure = process.argv[2] === 'pressure';
const tasks = Number(process.argv[pressure ? 3 : 2] ?? (pressure ? 2_000 : 1_000_000));
const run = pressure ? pressureSoak : soak;
const report = await run(lib, { tasks, log: (l) => console.log(`node: ${l}`) });
console.log(`node ${pressure ? 'pressure ' : ''}soak: ${JSON.stringify(report)}`);
