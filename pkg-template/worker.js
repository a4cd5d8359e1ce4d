// Entry script of ringpool's workers. It only loads the glue (whose snippet runs the worker
// loop when it finds itself in a ringpool worker) and hands it over, so that a bundled worker
// chunk uses its own copy instead of importing the page's.
import * as glue from './ringpool.js';

globalThis.__ringpoolGlue = glue;
