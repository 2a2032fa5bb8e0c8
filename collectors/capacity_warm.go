// Warm throughput (DescribeTable WarmThroughput) and the largest sudden
// peak each table and GSI can take today without throttling.
//
// AWS's rules, from its documentation:
//   - Warm throughput is the number of read and write operations a table or
//     GSI can support instantaneously; it grows with use, never decreases,
//     and UpdateTable WarmThroughput raises it ahead of an event ("pre-
//     warming"), charged per AWS's DynamoDB pricing page: the default values
//     are free
//     (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput.html).
//   - An on-demand table instantly accommodates up to double its previous
//     peak; exceeding double the previous peak within 30 minutes may
//     throttle; a new on-demand table can drive 12,000 read or 4,000 write
//     request units at once
//     (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html,
//     https://repost.aws/knowledge-center/on-demand-table-throttling-dynamodb).
//   - A provisioned table serves its provisioned capacity; it can be raised
//     up to its warm throughput at once
//     (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/warm-throughput-scenarios.html).
package collectors

import (
	"math"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
)

// New on-demand table values (read, write request units per second): what
// a new on-demand table, or one with no higher previous peak, serves at
// once (AWS, on-demand capacity mode, "Initial throughput").
var onDemandNewTable = [2]float64{12000, 4000}

// WarmThroughputActive is the status whose warm throughput is used in the
// sudden-peak figure; any other (UPDATING: a raise in progress) is shown
// but not used.
const WarmThroughputActive = "ACTIVE"

// WarmThroughput is the warm throughput of a table (Index "") or GSI as
// DescribeTable reports it.
type WarmThroughput struct {
	Index string
	// Units are the read and write units per second; NaN when the answer
	// has no such field.
	Units [2]float64
	// Status is AWS's status of the warm throughput (ACTIVE, UPDATING,
	// ...); "unknown" when the answer gives none.
	Status string
}

// WarmThroughputs returns the warm throughput of the table and each GSI
// that reports one; a table or GSI whose answer has no WarmThroughput
// (older API answers, before November 2024) is left out.
func WarmThroughputs(d *types.TableDescription) []WarmThroughput {
	if d == nil {
		return nil
	}
	var out []WarmThroughput
	if w := d.WarmThroughput; w != nil {
		out = append(out, warmOf("", w.ReadUnitsPerSecond, w.WriteUnitsPerSecond, string(w.Status)))
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if w := g.WarmThroughput; w != nil {
			out = append(out, warmOf(aws.ToString(g.IndexName), w.ReadUnitsPerSecond, w.WriteUnitsPerSecond, string(w.Status)))
		}
	}
	return out
}

func warmOf(index string, read, write *int64, status string) WarmThroughput {
	w := WarmThroughput{Index: index, Units: [2]float64{math.NaN(), math.NaN()}, Status: status}
	if read != nil {
		w.Units[0] = float64(*read)
	}
	if write != nil {
		w.Units[1] = float64(*write)
	}
	if w.Status == "" {
		w.Status = Unknown
	}
	return w
}

// PeakInput is what SuddenPeak needs of one table or GSI and dimension
// (read or write).
type PeakInput struct {
	// Mode is the table's billing mode.
	Mode capacity.Mode
	// Warm is the warm throughput in units per second and WarmStatus its
	// status; NaN when DescribeTable reports none.
	Warm       float64
	WarmStatus string
	// Peak30d is the highest per-second demand of the last 30 days; NaN
	// without history.
	Peak30d float64
	// Provisioned is the provisioned capacity (provisioned mode); NaN when
	// unknown.
	Provisioned float64
	// OnDemandMax is the on-demand maximum; 0 when unlimited.
	OnDemandMax float64
	// Write selects the write dimension (for the new-table value).
	Write bool
}

// SuddenPeak returns the largest per-second demand a table or GSI can take
// today all at once without throttling (the burst capacity of a
// provisioned table and hot keys aside), or NaN when it cannot be told:
//   - PROVISIONED: its provisioned capacity (NaN when unknown); its warm
//     throughput only says how far that can be raised at once.
//   - PAY_PER_REQUEST: the largest of the new-table value, twice Peak30d
//     (on-demand's "double the previous peak") and the warm throughput
//     while ACTIVE (a value UPDATING is not used), capped by OnDemandMax.
//   - another mode: NaN.
func SuddenPeak(in PeakInput) float64 {
	switch in.Mode {
	case capacity.Provisioned:
		if in.Provisioned >= 0 {
			return in.Provisioned
		}
		return math.NaN()
	case capacity.OnDemand:
		k := 0
		if in.Write {
			k = 1
		}
		c := onDemandNewTable[k]
		if in.Peak30d > 0 {
			c = math.Max(c, 2*in.Peak30d)
		}
		if in.WarmStatus == WarmThroughputActive && in.Warm > 0 {
			c = math.Max(c, in.Warm)
		}
		if in.OnDemandMax > 0 {
			c = math.Min(c, in.OnDemandMax)
		}
		return c
	}
	return math.NaN()
}

// WarmFigures are the warm throughput and sudden-peak figures of a table
// (Index "") or GSI, read then write.
type WarmFigures struct {
	Index string
	// Warm is the warm throughput (NaN when DescribeTable has none) and
	// WarmStatus its status ("" when none).
	Warm       [2]float64
	WarmStatus string
	// Peak30d is the highest per-second demand of the last 30 days (a
	// lower bound before the last 7 days, which the history holds hour by
	// hour only); NaN without history.
	Peak30d [2]float64
	// SuddenPeak is SuddenPeak's answer.
	SuddenPeak [2]float64
}

// Headroom returns SuddenPeak over Peak30d for dimension k: how many times
// the highest demand of the last 30 days the table can take at once; NaN
// when either is unknown or the peak is zero.
func (w WarmFigures) Headroom(k int) float64 {
	if !(w.Peak30d[k] > 0) || math.IsNaN(w.SuddenPeak[k]) {
		return math.NaN()
	}
	return w.SuddenPeak[k] / w.Peak30d[k]
}

// peak30d returns the highest per-second demand of h over the 30 days
// before end: the highest minute of the last 7 days and the highest hour
// of the 23 days before them (hourly means: a lower bound of their
// minutes); NaN when the history is empty.
func peak30d(h *history, end time.Time) float64 {
	if h == nil {
		return math.NaN()
	}
	from7 := end.Add(-week)
	var best float64
	seen := false
	if h.staged != nil {
		for _, v := range h.staged.perMinute(from7, end) {
			best, seen = math.Max(best, v/60), true
		}
	} else {
		best, seen = h.peak(from7, end, 100)/60, true
	}
	for _, v := range h.hourly(end.Add(-30*day), from7) {
		best, seen = math.Max(best, v/3600), true
	}
	if !seen {
		return math.NaN()
	}
	return best
}

// warmFigures derives the warm figures of a table and its GSIs from its
// description and histories.
func warmFigures(st *capacityState, tb *Table, end time.Time) []WarmFigures {
	d := tb.Description
	if d == nil {
		return nil
	}
	warm := map[string]WarmThroughput{}
	for _, w := range WarmThroughputs(d) {
		warm[w.Index] = w
	}
	mode := capacity.Mode(tb.BillingMode())
	var out []WarmFigures
	for _, idx := range append([]string{""}, tb.IndexNames()...) {
		pt, od := throughputOf(d, idx)
		f := WarmFigures{Index: idx}
		w, ok := warm[idx]
		if ok {
			f.WarmStatus = w.Status
		}
		for k := range 2 {
			f.Warm[k] = math.NaN()
			if ok {
				f.Warm[k] = w.Units[k]
			}
			f.Peak30d[k] = peak30d(st.hist[historyKey{table: tb.Name, index: idx, write: k == 1}], end)
			in := PeakInput{Mode: mode, Warm: f.Warm[k], WarmStatus: f.WarmStatus, Peak30d: f.Peak30d[k], Provisioned: math.NaN(), Write: k == 1}
			if pt != nil {
				u := pt.ReadCapacityUnits
				if k == 1 {
					u = pt.WriteCapacityUnits
				}
				if u != nil {
					in.Provisioned = float64(*u)
				}
			}
			if od != nil {
				u := od.MaxReadRequestUnits
				if k == 1 {
					u = od.MaxWriteRequestUnits
				}
				if v := aws.ToInt64(u); v > 0 {
					in.OnDemandMax = float64(v)
				}
			}
			f.SuddenPeak[k] = SuddenPeak(in)
		}
		out = append(out, f)
	}
	return out
}

// throughputOf returns the provisioned and on-demand settings of the table
// (index "") or a GSI.
func throughputOf(d *types.TableDescription, index string) (*types.ProvisionedThroughputDescription, *types.OnDemandThroughput) {
	if index == "" {
		return d.ProvisionedThroughput, d.OnDemandThroughput
	}
	for _, g := range d.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == index {
			return g.ProvisionedThroughput, g.OnDemandThroughput
		}
	}
	return nil, nil
}
