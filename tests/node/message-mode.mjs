// Runs the behaviour files in message mode (scripts/test.sh imports this first in each file of
// that run): every pool the files create without a `mode` is made with mode 'message', as
// on a page that is not cross-origin isolated. helpers.mjs reads `RINGPOOL_TEST_MODE`.
import { Pool } from 'ringpool';

globalThis.RINGPOOL_TEST_MODE = 'message';
const create = Pool.create;
Pool.create = function (options) {
  const o = options === undefined ? {} : options;
  const given = o !== null && typeof o === 'object' ? o : null;
  // The given object stays the prototype, so its getters still run when Pool.create reads them.
  return create.call(this, given !== null && !('mode' in given) ? Object.setPrototypeOf({ mode: 'message' }, given) : options);
};
