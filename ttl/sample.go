package ttl

import (
	"errors"
	"fmt"
)

// SegmentCounts is the tally of one parallel-scan segment that was read
// completely.
type SegmentCounts struct {
	// Segment is the segment number, in [0, TotalSegments).
	Segment int
	// Items is the number of items read.
	Items int64
	// ByClass counts the items read per class; it must sum to Items.
	ByClass [NumClasses]int64
}

// Add counts one item of class c.
func (s *SegmentCounts) Add(c Class) {
	if c.Valid() {
		s.Items++
		s.ByClass[c]++
	}
}

// Count returns the number of items read whose class is in set.
func (s *SegmentCounts) Count(set ClassSet) int64 {
	var n int64
	for c, k := range s.ByClass {
		if set.Has(Class(c)) {
			n += k
		}
	}
	return n
}

// Sample is a cluster sample of a table: Segments are distinct segments of a
// parallel scan with TotalSegments segments, chosen uniformly at random
// without replacement, each read completely.
type Sample struct {
	// TotalSegments is the scan's TotalSegments (N).
	TotalSegments int
	// TableItems is DynamoDB's ItemCount for the table (refreshed about
	// every six hours, so it may be stale). 0 means unknown (as in some
	// emulators): the total is then estimated from the sample.
	TableItems int64
	// Segments are the segments read (k of them, 1 <= k <= N).
	Segments []SegmentCounts
}

// ErrEmptySample is returned when some but not all segments were read and
// they held no items: the sample says nothing about fractions.
var ErrEmptySample = errors.New("ttl: the sampled segments hold no items")

// validate checks the sample's shape. Errors name segment positions and
// counts, never item content.
func (s *Sample) validate() error {
	if s.TotalSegments < 1 {
		return errors.New("ttl: TotalSegments must be at least 1")
	}
	if s.TableItems < 0 {
		return errors.New("ttl: TableItems must not be negative")
	}
	k := len(s.Segments)
	if k == 0 {
		return errors.New("ttl: no segments in the sample")
	}
	if k > s.TotalSegments {
		return fmt.Errorf("ttl: %d segments read but TotalSegments is %d", k, s.TotalSegments)
	}
	seen := make(map[int]bool, k)
	for i := range s.Segments {
		seg := &s.Segments[i]
		if seg.Segment < 0 || seg.Segment >= s.TotalSegments {
			return fmt.Errorf("ttl: sample entry %d: segment number out of range", i)
		}
		if seen[seg.Segment] {
			return fmt.Errorf("ttl: sample entry %d: segment read twice", i)
		}
		seen[seg.Segment] = true
		var sum int64
		for _, n := range seg.ByClass {
			if n < 0 {
				return fmt.Errorf("ttl: sample entry %d: negative class count", i)
			}
			sum += n
		}
		if sum != seg.Items {
			return fmt.Errorf("ttl: sample entry %d: class counts do not add up to the items read", i)
		}
	}
	return nil
}
