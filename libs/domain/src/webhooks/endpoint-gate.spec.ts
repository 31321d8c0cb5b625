// The per-endpoint gate: slots, the waiting room, backlogs and their own claims.
import { EndpointGate } from './endpoint-gate';

describe(EndpointGate.name, () => {
  it('lets `cap` in per endpoint, queues up to the waiting room, then sends the rest back', () => {
    const gate = new EndpointGate<string>(2, 2);
    expect(['a1', 'a2', 'a3', 'a4', 'a5'].map((d) => gate.admit('A', d, 0))).toEqual([
      'enter',
      'enter',
      'wait',
      'wait',
      'release',
    ]);
    // Another endpoint is not held up by A.
    expect(gate.admit('B', 'b1', 0)).toBe('enter');
    expect(gate.waiting).toBe(2);
    expect(gate.backlogged()).toEqual(['A']);
    // A freed slot goes to the oldest waiter, in order.
    expect(gate.leave('A')).toBe('a3');
    expect(gate.leave('A')).toBe('a4');
    expect(gate.waiting).toBe(0);
    expect(gate.leave('A')).toBeUndefined();
  });

  it('backlogs an endpoint whose waiters linger and hands their leases back', () => {
    const gate = new EndpointGate<string>(1, 5);
    gate.admit('slow', 's1', 0);
    gate.admit('slow', 's2', 0);
    gate.admit('slow', 's3', 400);
    gate.admit('fast', 'f1', 0);
    expect(gate.lingering(999, 1000)).toEqual([]);
    expect(gate.lingering(1000, 1000)).toEqual([
      { endpointId: 'slow', item: 's2' },
      { endpointId: 'slow', item: 's3' },
    ]);
    expect(gate.waiting).toBe(0);
    expect(gate.isBacklogged('slow')).toBe(true);
    expect(gate.isBacklogged('fast')).toBe(false);
  });

  it('claims for a backlogged endpoint only with free slots, after its leases are back', () => {
    const gate = new EndpointGate<string>(3, 0);
    for (const d of ['a1', 'a2', 'a3']) expect(gate.admit('A', d, 0)).toBe('enter');
    expect(gate.admit('A', 'a4', 0)).toBe('release');
    expect(gate.toFeed()).toEqual([]); // full, and a lease still being handed back
    gate.leave('A');
    expect(gate.toFeed('A')).toEqual([]); // the lease is not back yet
    gate.released('A');
    expect(gate.toFeed('A')).toEqual([{ endpointId: 'A', room: 1 }]);
    expect(gate.toFeed()).toEqual([]); // one claim of its own at a time
    gate.fed('A', 1, 1);
    expect(gate.admit('A', 'a4', 0)).toBe('enter');
    expect(gate.isBacklogged('A')).toBe(true);
    gate.leave('A');
    expect(gate.toFeed()).toEqual([{ endpointId: 'A', room: 1 }]);
    // Fewer than asked: nothing of A is left due in the table.
    gate.fed('A', 1, 0);
    expect(gate.isBacklogged('A')).toBe(false);
    expect(gate.backlogged()).toEqual([]);
  });

  it('forgets an endpoint once it holds nothing', () => {
    const gate = new EndpointGate<string>(1, 1);
    gate.admit('A', 'a1', 0);
    gate.leave('A');
    expect(gate.toFeed()).toEqual([]);
    gate.backlog('A');
    expect(gate.toFeed()).toEqual([{ endpointId: 'A', room: 1 }]);
    gate.fed('A', 1, 0);
    expect((gate as unknown as { endpoints: Map<string, unknown> }).endpoints.size).toBe(0);
  });
});
