// The soak in Node: `node tests/soak/node.mjs [tasks]` (default 1,000,000), against the built
// package in pkg/. Prints progress and a JSON report; exits 1 on any violation.
import * as lib from '../../pkg/index.js';
import { soak } from './soak.mjs';

const tasks = Number(process.argv[2] ?? 1_000_000);
const report = await soak(lib, { tasks, log: (l) => console.log(`node: ${l}`) });
console.log(`node soak: ${JSON.stringify(report)}`);
