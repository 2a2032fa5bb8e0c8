// Package collectors holds one collector per AWS source. Each runs in the
// background on its own cadence (driven by the exporter's scheduler or by a
// replay), keeps what it learned, and hands the exporter a snapshot of
// constant metrics: a scrape never calls AWS.
//
// Every collector has the same shape:
//
//   - a constructor NewX(deps Deps, settings XSettings) *X: Deps are the
//     targets, the inventory and the logger, the same for every collector;
//     XSettings are the collector's own tuning, translated from the
//     configuration by the caller (the exporter's wiring);
//   - the Collector interface: Name, Run (one cycle at a given time) and
//     Metrics (the last snapshot);
//   - one fan-out over the targets, eachTarget, with the collector's bound
//     on how many targets run at once: every target's figures are published
//     as soon as that target is done, so a region that hangs delays no
//     other, and every target's error is attributed to it (TargetError), so
//     that the caller can tell per target whether the run succeeded.
//
// Failures are returned, never logged, by the collectors: Run returns every
// problem of the cycle joined and wrapped with what failed (the call, the
// table, the account and region), and the collector keeps serving what it
// knew. The caller of Run handles them, and logs each one once: the
// exporter's scheduler records the run's outcome in the self-metrics (one
// success gauge per collector, account and region) and logs the run's
// errors in one line; a command that runs a collector itself (capacity
// report) prints them. A collector's own logger only receives what is not a
// failure: a table dropped or re-created, a read budget spent, the progress
// of a long fetch, and a notice, once per table, of a billing mode the
// capacity what-if cannot price (the error itself is returned on every
// run).
package collectors
