package sim

import "math"

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
}

// serve applies one minute of demand d (units/s) with a share hot on the
// hottest partition (at least 1/partitions when the count is set) to the
// dimension, in this order: the partition limit (key-range throttles), the
// on-demand maximum, the per-table quota (account limit, on-demand only),
// then provisioned capacity plus burst, or on-demand's "twice the previous
// peak" (also a key-range throttle: the partitions have not split yet).
// The caller settles the minute with settle once it knows what was
// finally consumed.
func (s *dirState) serve(d, hot float64, partitions int, onDemand bool, quota float64) served {
	var out served
	limit, share := partitionLimit(s.read, hot, partitions)
	r := d
	if kr := d*share - limit; kr > 0 {
		out.throttled[causeKeyRange] = kr
		r -= kr
	}
	if onDemand && s.maxOnDemand > 0 && r > s.maxOnDemand {
		out.throttled[causeMaxOnDemand] = r - s.maxOnDemand
		r = s.maxOnDemand
	}
	// The per-table quota throttles on-demand tables only: a provisioned
	// table cannot be provisioned above it, and its consumption is bounded
	// by its capacity ("On-demand tables do not have provisioned capacity
	// levels to manage, but DynamoDB enforces account-level throughput
	// limits", Amazon DynamoDB Developer Guide, "Account limits exceeded",
	// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/throttling-account-limit-exceeded-mitigation.html).
	if onDemand && r > quota {
		out.throttled[causeAccountLimit] = r - quota
		r = quota
	}
	if onDemand {
		if allow := s.onDemandAllowance(); r > allow {
			out.throttled[causeKeyRange] += r - allow
			r = allow
		}
	} else if t := s.serveBurst(r); t > 0 {
		out.throttled[causeProvisioned] = t
		r -= t
	}
	out.consumed = r
	return out
}

// partitionLimit returns the limit of a partition (units/s) in a
// direction and the share of the traffic on the hottest partition.
// Without a configured partition count, DynamoDB is assumed to have split
// the table as its traffic grew: only a hot key concentrates traffic on
// one partition.
func partitionLimit(read bool, hot float64, partitions int) (limit, share float64) {
	limit = float64(partitionWriteLimit)
	if read {
		limit = partitionReadLimit
	}
	share = hot
	if partitions > 0 {
		share = math.Max(hot, 1/float64(partitions))
	}
	return limit, share
}

// onDemandAllowance is what an on-demand dimension serves at once: twice
// its previous peak (the highest minute at least peakWindow minutes old),
// which is at least the new-table figure.
func (s *dirState) onDemandAllowance() float64 {
	peak := math.Max(s.newTablePeak(), s.oldPeak)
	if s.ringN == peakWindow {
		peak = math.Max(peak, s.ring[s.ringPos]) // peakWindow minutes old
	}
	return onDemandPeakFactor * peak
}

// newTablePeak is the "previous peak" of a new on-demand table (6,000 read,
// 2,000 write request units/s).
func (s *dirState) newTablePeak() float64 {
	if s.read {
		return newTableReadPeak
	}
	return newTableWritePeak
}

// settle ends the minute once its consumption (units/s) is final: rejected
// units/s that serve counted as consumed were refused afterwards (a write
// whose GSI lacked capacity), so they return to the burst bucket; an
// on-demand minute feeds the previous peak.
func (s *dirState) settle(consumed, rejected float64, onDemand bool) {
	if onDemand {
		s.notePeak(consumed)
		return
	}
	if rejected > 0 {
		s.burst = math.Min(burstSeconds*s.cap, s.burst+rejected*60)
	}
}

// switchedToOnDemand sets the previous peak of a dimension switched from
// provisioned capacity c: half of it, or the new-table figure if higher.
func (s *dirState) switchedToOnDemand(c float64) {
	s.oldPeak = math.Max(s.newTablePeak(), switchedPeakShare*c)
	s.ringN, s.ringPos = 0, 0
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
