// Package capacity is a pure cost model for DynamoDB capacity modes: it prices
// a table's (or GSI's) per-minute consumed capacity in on-demand
// (PAY_PER_REQUEST) and in provisioned mode, and recommends whether switching
// is worth it.
//
// The model follows AWS's capacity-mode evaluator:
//
//   - Input is a Trace of per-minute consumed capacity units (the CloudWatch
//     ConsumedRead/WriteCapacityUnits Sum over each minute); units per second
//     are Sum ÷ 60. Minutes without data are zero.
//   - On-demand cost is Σ consumed units × the per-request-unit price
//     (request units equal consumed capacity units).
//   - Provisioned cost is Σ over hours of the hourly mean provisioned capacity
//     × the unit-hour price. The provisioned capacity is simulated with
//     target-tracking auto-scaling, or held constant for a table provisioned
//     without auto-scaling. SimulateTable runs the read and write capacity of
//     one table or GSI together, because DynamoDB's decrease limits count per
//     table or GSI; SimulateProvisioned and SimulateFixed run one dimension.
//   - EvaluateTableWindows evaluates several windows (7 and 30 days) off one
//     simulation over the whole trace, so no window starts cold.
//   - DiagnoseTable (and DiagnosisStream, minute by minute) says why the
//     simulation of a table's own policy throttles, and why its minutes
//     saturate (demand at or above the simulated capacity: where a history
//     capped by real throttling shows it): at the auto-scaling maximum, a
//     target above ReasonableTarget (70%) that the same policy at 70% would
//     not throttle or saturate, or the reaction time of auto-scaling
//     (diagnosis.go).
//   - FitTrend fits the growth of a table's daily consumed units (Theil–Sen
//     within each weekday, with Sen's 99% interval; no growth claimed when it holds zero), and
//     Project prices the window's figures with the traffic grown to 12 or
//     24 months by the same cost code, and finds the month the cheaper mode
//     changes (trend.go, projection.go).
//
// Unlike AWS's evaluator, which assumes instant scaling, the simulation delays
// each scale-out by AutoScalingSettings.ScaleOutDelay and counts the demand
// that exceeds the capacity in effect (after DynamoDB burst capacity) as
// throttled units. The trace is consumed capacity, already capped by the
// table's real throttling: the model does not see demand that was refused,
// and it does not model on-demand throttling. Everything here is
// deterministic and free of I/O.
package capacity
