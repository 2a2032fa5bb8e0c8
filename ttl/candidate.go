package ttl

import (
	"errors"
	"math"
	"slices"
	"sort"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A wrong attribute name is a silent TTL failure: TTL is enabled on one
// attribute (expireAt) while the application writes the expiry under another
// (expiresAt); TTL sees no attribute and never deletes the items. The sampler
// sees them only as Missing. When it reads whole items, a CandidateTally
// looks, in the items that lack the TTL attribute, for other top-level
// Number attributes whose values read as epoch times, and ChooseCandidate
// names the likely intended attribute with the share of the table that
// carries it and the backlog it implies. Only attribute names leave this
// file (a schema fact), never a value.

// Candidate search limits.
const (
	// CandidateHorizonYears is how far ahead an epoch time may lie and
	// still read as an expiry: further ahead it is not taken for one.
	CandidateHorizonYears = 20
	// MaxCandidateNames caps the distinct attribute names a tally keeps:
	// a schema with data in its attribute names must not grow it without
	// bound. Names seen after the cap are not counted (Overflow).
	MaxCandidateNames = 64
	// MaxCandidateNameBytes is the longest attribute name considered.
	MaxCandidateNameBytes = 128
	// MinCandidateItems is the fewest sampled items that must carry a
	// candidate before it is named.
	MinCandidateItems = 5
	// NewestKept is how many of its latest values a tally keeps per
	// attribute name, to tell a write time from a backlog of expiries.
	NewestKept = 10
	// WriteTimeGapFactor: an attribute that never holds a future time and
	// whose latest sampled value lies within this many times the spacing
	// of its NewestKept latest values before now tracks the clock (a
	// creation or update time); see ChooseCandidate. For a time written at
	// a steady rate the gap and the spacings are exponential: the gap
	// exceeds 20 spacings with a probability of about 3e-5.
	WriteTimeGapFactor = 20
)

// EpochTime reads a Number attribute value as an epoch time in seconds,
// when it plausibly is one: seconds, or milliseconds (a value above 1e12,
// converted), no more than five years before now (TooOldAfter) and no more
// than CandidateHorizonYears after it. Anything else (not a Number, another
// unit, out of range) is not an epoch time.
func EpochTime(av types.AttributeValue, now time.Time) (float64, bool) {
	n, ok := av.(*types.AttributeValueMemberN)
	if !ok || n == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false
	}
	if v > 1e12 {
		v /= 1000
	}
	lo := float64(now.AddDate(-TooOldAfter, 0, 0).Unix())
	hi := float64(now.AddDate(CandidateHorizonYears, 0, 0).Unix())
	if v < lo || v > hi {
		return 0, false
	}
	return v, true
}

// CandidateCounts count, for one attribute name, the items lacking the TTL
// attribute that carry it as an epoch time.
type CandidateCounts struct {
	// Items carry the attribute as an epoch time.
	Items int64
	// Expired hold a time at or before now.
	Expired int64
	// Future hold a time after now. An expiry attribute holds future times
	// on recently written items; a creation or update time never does.
	Future int64
	// Newest holds the latest values seen (epoch seconds), at most
	// NewestKept, in no particular order.
	Newest []float64
}

// keepNewest adds v to the latest values of c, keeping the NewestKept
// largest.
func (c *CandidateCounts) keepNewest(v float64) {
	if len(c.Newest) < NewestKept {
		c.Newest = append(c.Newest, v)
		return
	}
	low := 0
	for i, x := range c.Newest {
		if x < c.Newest[low] {
			low = i
		}
	}
	if v > c.Newest[low] {
		c.Newest[low] = v
	}
}

// CandidateTally is what one segment, read whole, says about candidates.
type CandidateTally struct {
	// Missing counts the items read that lack the TTL attribute.
	Missing int64
	// ByName holds the counts per attribute name.
	ByName map[string]*CandidateCounts
	// Overflow is true when names beyond MaxCandidateNames were left out.
	Overflow bool
}

// Add looks at one item read whole. Items that carry the TTL attribute
// (whatever its value) are not candidates' business; key attributes (skip)
// are never candidates.
func (t *CandidateTally) Add(item map[string]types.AttributeValue, attribute string, skip func(name string) bool, now time.Time) {
	if _, ok := item[attribute]; ok {
		return
	}
	t.Missing++
	for name, av := range item {
		if name == attribute || (skip != nil && skip(name)) || len(name) > MaxCandidateNameBytes || !utf8.ValidString(name) {
			continue
		}
		at, ok := EpochTime(av, now)
		if !ok {
			continue
		}
		c := t.ByName[name]
		if c == nil {
			if len(t.ByName) >= MaxCandidateNames {
				t.Overflow = true
				continue
			}
			if t.ByName == nil {
				t.ByName = map[string]*CandidateCounts{}
			}
			c = &CandidateCounts{}
			t.ByName[name] = c
		}
		c.Items++
		c.keepNewest(at)
		if at <= float64(now.Unix()) {
			c.Expired++
		} else {
			c.Future++
		}
	}
}

// SegmentCandidates is the candidate tally of one segment of a Sample, read
// whole.
type SegmentCandidates struct {
	// Segment is the segment number.
	Segment int
	// Items is the number of items read in the segment.
	Items int64
	// Tally holds the candidate counts.
	Tally CandidateTally
}

// Candidate is the likely intended TTL attribute of a table.
type Candidate struct {
	// Attribute is the attribute name.
	Attribute string
	// Carried estimates the items that lack the TTL attribute and carry
	// Attribute as an epoch time (Fraction: their share of the table).
	Carried Estimate
	// Expired estimates those of them whose time has passed: the backlog
	// TTL would delete if it were enabled on Attribute (or the values were
	// copied into the TTL attribute), and never deletes as things are.
	Expired Estimate
	// MissingItems is the number of sampled items without the TTL attribute.
	MissingItems int64
	// FutureFraction is the share of the sampled items carrying Attribute
	// whose value lies in the future: above 0 a writer still writes
	// expiries under that name; 0 when they have all passed (a writer since
	// fixed).
	FutureFraction float64
}

// ErrNoCandidate is returned when no attribute qualifies.
var ErrNoCandidate = errors.New("ttl: no candidate TTL attribute in the sample")

// ChooseCandidate names the likely intended TTL attribute from the segments
// of a sample read whole at now (totalSegments and tableItems as in Sample)
// and estimates its share and backlog with Sample.Estimate's method.
//
// An attribute qualifies when it is carried, as an epoch time, by at least
// half of the sampled items that lack the TTL attribute and by at least
// MinCandidateItems of them: a name held by most items is a schema fact,
// not data (some schemas put data in attribute names; those names are each
// held by few items). Among qualifying attributes, one holding future times
// wins over one that never does (an expiry is written ahead; a creation or
// update time never is), then the most carried, then the first name in
// byte order.
//
// An attribute that never holds a future time is an expiry only if its
// writer stopped: expiries written under a wrong name by a writer since
// fixed have all passed, and the latest of them lies well before now. A
// creation or update time (updated_at on an entity kept for good) never
// holds a future time either, but it tracks the clock: its latest value is
// about as close to now as its latest values are to each other. Such an
// attribute (WriteTimeGapFactor) does not qualify.
func ChooseCandidate(totalSegments int, tableItems int64, segs []SegmentCandidates, now time.Time) (Candidate, error) {
	total := map[string]*CandidateCounts{}
	var missing int64
	for _, s := range segs {
		missing += s.Tally.Missing
		for name, c := range s.Tally.ByName {
			t := total[name]
			if t == nil {
				t = &CandidateCounts{}
				total[name] = t
			}
			t.Items += c.Items
			t.Expired += c.Expired
			t.Future += c.Future
			for _, v := range c.Newest {
				t.keepNewest(v)
			}
		}
	}
	names := make([]string, 0, len(total))
	for name, c := range total {
		if c.Items >= MinCandidateItems && 2*c.Items >= missing && !tracksTheClock(c, now) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return Candidate{MissingItems: missing}, ErrNoCandidate
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := total[names[i]], total[names[j]]
		if (a.Future > 0) != (b.Future > 0) {
			return a.Future > 0
		}
		if a.Items != b.Items {
			return a.Items > b.Items
		}
		return names[i] < names[j]
	})
	best := names[0]
	carried, err := hitSample(totalSegments, tableItems, segs, func(c *CandidateCounts) int64 { return c.Items }, best).Estimate(SetOf(Expired))
	if err != nil {
		return Candidate{}, err
	}
	expired, err := hitSample(totalSegments, tableItems, segs, func(c *CandidateCounts) int64 { return c.Expired }, best).Estimate(SetOf(Expired))
	if err != nil {
		return Candidate{}, err
	}
	carried.Classes, expired.Classes = 0, 0
	c := total[best]
	return Candidate{Attribute: best, Carried: carried, Expired: expired, MissingItems: missing,
		FutureFraction: float64(c.Future) / float64(c.Items)}, nil
}

// tracksTheClock tells whether counts that never hold a future time read
// as a write time: the latest value lies before now by at most
// WriteTimeGapFactor times the mean spacing of the latest values (at least
// two of them; the spacing at least a second). Values that stopped well
// before now (a fixed writer's expiries) do not.
func tracksTheClock(c *CandidateCounts, now time.Time) bool {
	if c.Future > 0 || len(c.Newest) < 2 {
		return false
	}
	newest := slices.Max(c.Newest)
	// At least a second: epoch seconds written many times a second repeat.
	spacing := max((newest-slices.Min(c.Newest))/float64(len(c.Newest)-1), 1)
	return float64(now.Unix())-newest <= WriteTimeGapFactor*spacing
}

// hitSample recasts per-segment hit counts as a two-class Sample (hits
// counted as Expired, the other items as Live) so that Sample.Estimate's
// cluster-sample method applies unchanged.
func hitSample(totalSegments int, tableItems int64, segs []SegmentCandidates, hits func(*CandidateCounts) int64, name string) Sample {
	s := Sample{TotalSegments: totalSegments, TableItems: tableItems}
	for _, sg := range segs {
		var h int64
		if c := sg.Tally.ByName[name]; c != nil {
			h = hits(c)
		}
		sc := SegmentCounts{Segment: sg.Segment, Items: sg.Items}
		sc.ByClass[Expired] = h
		sc.ByClass[Live] = sg.Items - h
		s.Segments = append(s.Segments, sc)
	}
	return s
}
