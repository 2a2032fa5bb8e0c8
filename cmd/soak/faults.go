package main

import (
	"sync/atomic"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// faultKind is one fault of the schedule: the simulated account's faults it
// injects while it is on.
type faultKind struct {
	name   string
	faults func(callTimeout time.Duration) []awssim.Fault
}

// soakFaults are switched on one after another, each for the schedule's
// "on" time, with no fault for its "off" time in between.
var soakFaults = []faultKind{
	{"throttling (every service)", func(time.Duration) []awssim.Fault {
		return []awssim.Fault{{Error: awssim.ErrThrottling}}
	}},
	{"DynamoDB and Auto Scaling 5xx", func(time.Duration) []awssim.Fault {
		return []awssim.Fault{
			{Service: awssim.ServiceDynamoDB, Error: awssim.ErrInternal},
			{Service: awssim.ServiceAutoScaling, Error: awssim.ErrInternal},
		}
	}},
	{"answers slower than the call timeout", func(callTimeout time.Duration) []awssim.Fault {
		return []awssim.Fault{{Delay: callTimeout + 2*time.Second}}
	}},
	{"AccessDenied on one table and on Auto Scaling", func(time.Duration) []awssim.Fault {
		return []awssim.Fault{
			{Table: soakTable(0), Error: awssim.ErrAccessDenied},
			{Service: awssim.ServiceAutoScaling, Error: awssim.ErrAccessDenied},
		}
	}},
	{"connection reset mid-body", func(time.Duration) []awssim.Fault {
		return []awssim.Fault{{Reset: true}}
	}},
}

// phase is one stretch of the schedule.
type phase struct {
	fault *faultKind // nil: no fault
	dur   time.Duration
}

// schedule is off without a fault, then every fault in turn on for on,
// each followed by off without a fault, repeated until total is used up;
// what is left is added to the last phase, so the schedule starts and ends
// with a phase of at least off without a fault.
func schedule(total, on, off time.Duration) []phase {
	ps := []phase{{nil, min(off, total)}}
	left := total - ps[0].dur
	for i := 0; left >= on+off; i++ {
		f := &soakFaults[i%len(soakFaults)]
		ps = append(ps, phase{f, on}, phase{nil, off})
		left -= on + off
	}
	ps[len(ps)-1].dur += left
	return ps
}

// inject switches f on in srv and returns the function that switches it
// off; hits counts the requests the fault applied to.
func inject(srv *awssim.Server, f *faultKind, callTimeout time.Duration, hits *atomic.Int64) (off func()) {
	var removes []func()
	for _, fa := range f.faults(callTimeout) {
		fa.OnMatch = func() { hits.Add(1) }
		removes = append(removes, srv.AddFault(fa))
	}
	return func() {
		for _, r := range removes {
			r()
		}
	}
}
