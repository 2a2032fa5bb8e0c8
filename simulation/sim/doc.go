// Package sim is the simulation engine of the simulated AWS account: it
// makes the tables of an [awssim.Server] misbehave on cue, realistically,
// from a YAML scenario file.
//
// A [Scenario] (see README.md in this directory for the format, and
// [Builtin] for the shipped ones, one per capacity and TTL failure mode
// plus a healthy control and a demo holding them all) describes an account,
// its tables (billing mode, capacity, GSIs, auto-scaling, partitions and
// hot keys, TTL setting and items, tags), their traffic (base rates,
// seasonality, noise, spikes, flash sales, steps, surges, read/write mix
// changes, hot-key episodes), billing-mode switches and faults, at times
// relative to the scenario start so that a scenario has history.
//
// [New] installs the scenario into the server and simulates its history
// (90 days by default) minute by minute: demand, target-tracking
// auto-scaling (2 minutes above target, then a delay; 15 minutes below with
// 20% headroom; DynamoDB's decrease limits, enforced by the server's own
// UpdateTable rules), burst capacity, partition limits, on-demand's "twice
// the previous peak" and maximum throughput, the per-table quota, latency
// and errors. The engine is then a [awssim.MetricSource]: CloudWatch data
// is kept at 1-minute resolution for 15 days, 5-minute to 63 days and
// hourly beyond, as CloudWatch keeps it, and event metrics exist only in
// minutes with events. The store is compact: about 1.4 MB per table with 2
// GSIs for 90 days (values held in float32 while exact, nothing held for
// days without events, latency computed from the minute's demand when
// read; BenchmarkBuildAccount). DescribeTable follows the simulation (capacity,
// LastIncrease/DecreaseDateTime, NumberOfDecreasesToday, billing mode,
// LastUpdateToPayPerRequestDateTime). TimeToLiveDeletedItemCount comes from
// the server's own late TTL process over the items the engine writes.
//
// Time advances lazily: before the server answers any request, and before
// any CloudWatch read, the engine simulates up to the clock (every minute
// that has ended). [Engine.AdvanceTo] drives it explicitly for replays.
// [Engine.Truth], [Engine.ScalingEvents] and [Engine.SwitchResults] expose
// the simulated truth to tests.
package sim
