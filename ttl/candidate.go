package ttl

import (
	"errors"
	"math"
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
}

// ErrNoCandidate is returned when no attribute qualifies.
var ErrNoCandidate = errors.New("ttl: no candidate TTL attribute in the sample")

// ChooseCandidate names the likely intended TTL attribute from the segments
// of a sample read whole (totalSegments and tableItems as in Sample) and
// estimates its share and backlog with Sample.Estimate's method.
//
// An attribute qualifies when it is carried, as an epoch time, by at least
// half of the sampled items that lack the TTL attribute and by at least
// MinCandidateItems of them: a name held by most items is a schema fact,
// not data (some schemas put data in attribute names; those names are each
// held by few items). Among qualifying attributes, one holding future times
// wins over one that never does (an expiry is written ahead; a creation or
// update time never is), then the most carried, then the first name in
// byte order.
func ChooseCandidate(totalSegments int, tableItems int64, segs []SegmentCandidates) (Candidate, error) {
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
		}
	}
	names := make([]string, 0, len(total))
	for name, c := range total {
		if c.Items >= MinCandidateItems && 2*c.Items >= missing {
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
	return Candidate{Attribute: best, Carried: carried, Expired: expired, MissingItems: missing}, nil
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
