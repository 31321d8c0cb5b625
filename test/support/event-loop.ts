// Counting the turns of this process's event loop: how a test sees that long work yields.

/** Counts the turns of the event loop (one per check phase) from now until `stop`. */
export function turnCounter(): { turns: () => number; stop: () => void } {
  let turns = 0;
  let on = true;
  const tick = () => {
    if (!on) return;
    turns++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return { turns: () => turns, stop: () => (on = false) };
}
