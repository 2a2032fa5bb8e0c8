package sim

import "math"

// DynamoDB limits used by the throttling model.
const (
	partitionReadLimit  = 3000 // read units per second per partition
	partitionWriteLimit = 1000 // write units per second per partition
	onDemandReadFloor   = 12000
	onDemandWriteFloor  = 4000 // what a new on-demand table serves at once
	peakWindow          = 30   // minutes before a peak counts as "previous"
	burstSeconds        = 300
)

// Throttle causes, in the order of the cause-specific CloudWatch metrics.
const (
	causeKeyRange = iota
	causeProvisioned
	causeMaxOnDemand
	causeAccountLimit
	numCauses
)

// causeMetric is the CloudWatch name part of each cause.
var causeMetric = [numCauses]string{"KeyRangeThroughput", "ProvisionedThroughput", "MaxOnDemandThroughput", "AccountLimit"}

// served is the outcome of one minute of one dimension, in units/s.
type served struct {
	consumed  float64
	throttled [numCauses]float64
	pressure  float64 // hottest partition's demand over its limit
}

// serve applies one minute of demand d (units/s) with a share hot on the
// hottest partition (at least 1/partitions when the count is set) to the
// dimension, in this order: the partition limit
// (key-range throttles), the on-demand maximum, the per-table quota
// (account limit), then provisioned capacity plus burst, or on-demand's
// "twice the previous peak" (also a key-range throttle: the partitions have
// not split yet).
func (s *dirState) serve(d, hot float64, partitions int, onDemand bool, quota float64) served {
	var out served
	limit := float64(partitionWriteLimit)
	floor := float64(onDemandWriteFloor)
	if s.read {
		limit, floor = partitionReadLimit, onDemandReadFloor
	}
	// Without a configured partition count, DynamoDB is assumed to have
	// split the table as its traffic grew: only a hot key concentrates
	// traffic on one partition.
	share := hot
	if partitions > 0 {
		share = math.Max(hot, 1/float64(partitions))
	}
	out.pressure = d * share / limit
	r := d
	if kr := d*share - limit; kr > 0 {
		out.throttled[causeKeyRange] = kr
		r -= kr
	}
	if onDemand && s.maxOnDemand > 0 && r > s.maxOnDemand {
		out.throttled[causeMaxOnDemand] = r - s.maxOnDemand
		r = s.maxOnDemand
	}
	if r > quota {
		out.throttled[causeAccountLimit] = r - quota
		r = quota
	}
	if onDemand {
		if allow := math.Max(floor, 2*s.oldPeak); r > allow {
			out.throttled[causeKeyRange] += r - allow
			r = allow
		}
	} else if t := s.serveBurst(r); t > 0 {
		out.throttled[causeProvisioned] = t
		r -= t
	}
	out.consumed = r
	if onDemand {
		s.notePeak(r)
	}
	return out
}

// serveBurst serves r units/s for a minute at the provisioned capacity and
// the burst bucket (up to 300 s of unused capacity) and returns the
// throttled units/s.
func (s *dirState) serveBurst(r float64) float64 {
	limit := burstSeconds * s.cap
	s.burst = math.Min(s.burst, limit)
	avail := s.cap * 60
	want := r * 60
	if want <= avail {
		s.burst = math.Min(limit, s.burst+avail-want)
		return 0
	}
	deficit := want - avail
	used := math.Min(deficit, s.burst)
	s.burst -= used
	return (deficit - used) / 60
}

// notePeak records an on-demand minute; minutes older than the peak window
// become the "previous peak".
func (s *dirState) notePeak(r float64) {
	if s.ringN == peakWindow {
		s.oldPeak = math.Max(s.oldPeak, s.ring[s.ringPos])
	} else {
		s.ringN++
	}
	s.ring[s.ringPos] = r
	s.ringPos = (s.ringPos + 1) % peakWindow
}
