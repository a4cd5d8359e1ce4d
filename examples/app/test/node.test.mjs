// The app in Node (worker_threads), from the built pkg/.
import { test } from 'node:test';
import * as app from '../pkg/index.js';
import { checks } from './checks.js';

for (const [name, check] of Object.entries(checks)) test(name, () => check(app));
