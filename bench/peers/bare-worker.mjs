// Worker script for the bare reference (`bare` in bench/node.mjs): no pool, just a
// `worker_threads` Worker running the named body on each message and answering its id.
import { parentPort } from 'node:worker_threads';
import * as bodies from '../tasks.mjs';

parentPort.on('message', ({ id, name, arg }) => parentPort.postMessage({ id, result: bodies[name](arg) }));
