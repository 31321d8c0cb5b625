// Prints one plain closing line ("Tests: N passed, N failed, N skipped") as the run's last line.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const line = `Tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped`;
    process.once('exit', () => process.stdout.write(`\n${line}\n`));
  }
}
module.exports = SummaryReporter;
