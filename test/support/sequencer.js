// Runs the delivery e2e file first, while the shared test database holds no other file's due
// messages (every worker claims due work across organizations). The rest keeps jest's own order.
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
