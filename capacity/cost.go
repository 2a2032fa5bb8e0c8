package capacity

import "fmt"

// HoursPerMonth is the month AWS prices with: 730 hours.
const HoursPerMonth = 730

// ReadWrite is an amount split between reads and writes.
type ReadWrite struct {
	// Read is the read part.
	Read float64
	// Write is the write part.
	Write float64
}

// Total returns Read + Write.
func (rw ReadWrite) Total() float64 { return rw.Read + rw.Write }

func (rw ReadWrite) add(o ReadWrite) ReadWrite {
	return ReadWrite{Read: rw.Read + o.Read, Write: rw.Write + o.Write}
}

// OnDemandCost returns the on-demand cost of a trace: consumed units (equal to
// request units) × the per-million price.
func OnDemandCost(t Trace, p Prices) ReadWrite {
	return ReadWrite{
		Read:  sum(t.Read) * p.OnDemandReadPerMillion / 1e6,
		Write: sum(t.Write) * p.OnDemandWritePerMillion / 1e6,
	}
}

// ProvisionedCost returns the cost of simulated read and write capacity:
// unit-hours × the unit-hour price.
func ProvisionedCost(read, write Simulation, p Prices) ReadWrite {
	return ReadWrite{Read: read.Cost(p.ProvisionedRCUHour), Write: write.Cost(p.ProvisionedWCUHour)}
}

// Monthly scales a cost over hours to HoursPerMonth.
func Monthly(cost, hours float64) float64 {
	if hours <= 0 {
		return 0
	}
	return cost * HoursPerMonth / hours
}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}

// dollars formats a monthly amount for a reason string.
func dollars(v float64) string { return fmt.Sprintf("$%.2f/month", v) }
