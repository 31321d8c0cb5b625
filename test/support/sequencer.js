// Runs the delivery e2e file first, before other files' in-process workers have come and gone:
// every worker claims due messages across the shared test database, and a file that ran earlier
// can leave one behind (an open issue, see README). The rest keeps jest's own order.
const Sequencer = require('@jest/test-sequencer').default;

const FIRST = ['test/sending/send-delivery.e2e-spec.ts'];

class DeliveryFirstSequencer extends Sequencer {
  sort(tests) {
    const ordered = super.sort(tests);
    const rank = (t) => {
      const i = FIRST.findIndex((f) => t.path.endsWith(f));
      return i < 0 ? FIRST.length : i;
    };
    return [...ordered].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = DeliveryFirstSequencer;
