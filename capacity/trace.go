package capacity

import (
	"fmt"
	"math"
	"time"
)

// Trace is the consumed capacity of one table or GSI, one value per minute.
// Values are the CloudWatch Sum over the minute (consumed units, not units per
// second); minutes without data must be zero.
type Trace struct {
	// Start is the beginning of the first minute.
	Start time.Time
	// Read holds ConsumedReadCapacityUnits Sum per minute. Empty means no reads.
	Read []float64
	// Write holds ConsumedWriteCapacityUnits Sum per minute. Empty means no writes.
	Write []float64
}

// Minutes returns the length of the trace in minutes.
func (t Trace) Minutes() int { return max(len(t.Read), len(t.Write)) }

// Hours returns the length of the trace in hours.
func (t Trace) Hours() float64 { return float64(t.Minutes()) / 60 }

// Validate checks that the series have the same length (or one is empty) and
// that every value is a finite non-negative number.
func (t Trace) Validate() error {
	if len(t.Read) > 0 && len(t.Write) > 0 && len(t.Read) != len(t.Write) {
		return fmt.Errorf("capacity: Trace.Write has %d minutes but Trace.Read has %d", len(t.Write), len(t.Read))
	}
	if t.Minutes() == 0 {
		return fmt.Errorf("capacity: Trace.Read and Trace.Write are both empty")
	}
	if err := checkSums("Trace.Read", t.Read); err != nil {
		return err
	}
	return checkSums("Trace.Write", t.Write)
}

// Series returns one dimension of the trace; an empty dimension becomes zeros.
func (t Trace) Series(d Dimension) Series {
	sum := t.Read
	if d == Write {
		sum = t.Write
	}
	if len(sum) == 0 {
		sum = make([]float64, t.Minutes())
	}
	return Series{Start: t.Start, Sum: sum}
}

// window returns minutes [from, to) of the trace.
func (t Trace) window(from, to int) Trace {
	w := Trace{Start: t.Start.Add(time.Duration(from) * time.Minute)}
	if len(t.Read) > 0 {
		w.Read = t.Read[from:to:to]
	}
	if len(t.Write) > 0 {
		w.Write = t.Write[from:to:to]
	}
	return w
}

// Dimension is read or write capacity.
type Dimension int

const (
	// Read is read capacity (RCU, read request units).
	Read Dimension = iota
	// Write is write capacity (WCU, write request units).
	Write
)

// String returns "read" or "write".
func (d Dimension) String() string {
	if d == Write {
		return "write"
	}
	return "read"
}

// Series is one dimension of a Trace: consumed units summed per minute.
type Series struct {
	// Start is the beginning of the first minute.
	Start time.Time
	// Sum holds the consumed units of each minute.
	Sum []float64
}

// Validate checks that the series is not empty and holds only finite
// non-negative numbers.
func (s Series) Validate() error {
	if len(s.Sum) == 0 {
		return fmt.Errorf("capacity: Series.Sum is empty")
	}
	return checkSums("Series.Sum", s.Sum)
}

// minuteStart returns the beginning of minute i.
func (s Series) minuteStart(i int) time.Time { return s.Start.Add(time.Duration(i) * time.Minute) }

func checkSums(name string, sums []float64) error {
	for i, v := range sums {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("capacity: %s[%d] must be a finite non-negative number, got %v", name, i, v)
		}
	}
	return nil
}
