package capacity

import "math"

// burstBucket models DynamoDB burst capacity: up to BurstSeconds of unused
// capacity is kept and spent when demand exceeds the provisioned capacity.
// DynamoDB calls burst "best effort"; the model assumes it is always there.
type burstBucket struct {
	stored float64 // unit-seconds
}

// fullBurst returns a bucket full for a capacity, as after a quiet period.
func fullBurst(capacity float64) burstBucket {
	return burstBucket{stored: BurstSeconds * capacity}
}

// spent reports whether the bucket holds less than a minute of the
// capacity: demand at or above the capacity is then served only as far as
// the capacity goes, and throttled beyond it.
func (b *burstBucket) spent(capacity float64) bool {
	return b.stored < 60*capacity
}

// serve accounts one minute of demand (unit-seconds) against a capacity
// (units per second) and returns the unit-seconds throttled.
func (b *burstBucket) serve(demand, capacity float64) float64 {
	limit := BurstSeconds * capacity
	b.stored = math.Min(b.stored, limit)
	avail := capacity * 60
	if demand <= avail {
		b.stored = math.Min(limit, b.stored+avail-demand)
		return 0
	}
	deficit := demand - avail
	used := math.Min(deficit, b.stored)
	b.stored -= used
	return deficit - used
}
