// Worker script for workerpool: registers the same task bodies.
import workerpool from 'workerpool';
import { noop, cpu, bytes, sum, record, made } from '../tasks.mjs';

workerpool.worker({ noop, cpu, bytes, sum, record, made });
