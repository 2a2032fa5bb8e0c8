package collectors

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/ttl"
)

// scanPageLimit is the items evaluated per Scan page: small pages keep the
// read budget and the read rate precise (a page of 1 KB items costs about
// 12.5 read units, eventually consistent).
const scanPageLimit = 100

// eventuallyConsistentBytesPerUnit is what one read capacity unit buys in
// an eventually consistent Scan: "one strongly consistent read per second,
// or two eventually consistent reads per second, for an item up to 4 KB"
// (Amazon DynamoDB Developer Guide, "Read consistency" and "Provisioned
// capacity mode"): 8 KB per unit. It turns a page's consumed capacity into
// an average item size.
const eventuallyConsistentBytesPerUnit = 8192

// WholeItemsMissingShare is the share of items without the TTL attribute,
// among the first WholeItemsProbeItems items of a sample, above which the
// sampler reads whole items instead of the keys and the TTL attribute: when
// most items lack the attribute, the application may write the expiry
// under another name (see ttl.ChooseCandidate). A Scan costs the same read
// units whatever its projection (DynamoDB charges for the items read, not
// the attributes returned), so the only extra read is the segment being
// read when the sampler switches, read again whole from its start. The
// segments read before the switch stay in the sample but not in the
// candidate search: the segments are read in a random order, so those read
// whole after the switch are still a simple random sample of segments.
// Item values never leave the sampler. The TTL collector reads whole items
// from the start (SampleOptions.WholeItems); the probe serves the ttl
// audit command.
const WholeItemsMissingShare = 0.5

// WholeItemsProbeItems is how many items the sampler reads before deciding
// (fewer when the sample aims at fewer than four times as many, or when
// the whole table is read at once and ends first).
const WholeItemsProbeItems = 50

// SampleOptions tune one TTL sample of one table.
type SampleOptions struct {
	// Attribute is the TTL attribute name.
	Attribute string
	// SampleItems is how many items the sample aims to read.
	SampleItems int
	// Budget caps the read capacity units the sample may consume; the last
	// page may overshoot it by one page.
	Budget float64
	// MaxReadRate caps read capacity units per second (0: no pacing).
	MaxReadRate float64
	// Now is the time items are classified against.
	Now time.Time
	// Rand chooses the segments; nil uses a random seed.
	Rand *rand.Rand
	// Pace waits between pages to respect MaxReadRate; nil waits on the wall clock.
	Pace func(ctx context.Context, d time.Duration) error
	// Progress, when set, is told after each segment how many of the
	// planned segments are done.
	Progress func(done, planned int)
	// WholeItems reads whole items from the start (as when the
	// table's last sample found most items without the TTL attribute);
	// otherwise the first items decide (WholeItemsMissingShare).
	WholeItems bool
}

// SampleResult is the outcome of one sample.
type SampleResult struct {
	// Sample holds the per-segment class counts of the segments read completely.
	Sample ttl.Sample
	// Planned is the number of segments the sample meant to read.
	Planned int
	// Complete is false when the budget ran out before every planned segment was read.
	Complete bool
	// ConsumedReadUnits is what DynamoDB reported for every Scan call made.
	ConsumedReadUnits float64
	// OldestExpiredAge is how long ago the oldest expired item seen expired.
	OldestExpiredAge time.Duration
	// OldestExpiredTTL is the TTL value (expiry time, Unix seconds) of the
	// oldest expired item seen; 0 when none was seen.
	OldestExpiredTTL float64
	// LiveRemaining holds the remaining lifetime, in seconds, of each live item read.
	LiveRemaining []float64
	// WholeItems is true when the sample read whole items (every
	// top-level attribute) from some segment on; Candidates then holds,
	// for each segment read whole, what its items without the TTL
	// attribute carry.
	WholeItems bool
	Candidates []ttl.SegmentCandidates
	// SizeUnknown is true when DynamoDB reported neither an item count nor
	// a size (as for up to six hours after a table is created or
	// imported) and the table held more than one sample's items: nothing
	// was sampled, since neither a random segment design nor a full read
	// within the budget was possible. Try again once DynamoDB publishes
	// the size.
	SizeUnknown bool
	// ExpiredSized is how many expired items were read whole (their size
	// known); ExpiredBytes is their billable size, ttl.ItemBytes plus
	// ttl.StorageOverhead each, and IndexExpiredBytes, by GSI (Indexes,
	// the table's GSIs), the billable size of their entries in it (none
	// for an item without the index's keys).
	ExpiredSized      int64
	ExpiredBytes      float64
	Indexes           []string
	IndexExpiredBytes []float64
}

// BacklogBytes estimates the storage the expired-but-undeleted items hold,
// expired being their estimated count (ttl.Estimate.Items): the base table
// first, then each GSI of Indexes, each expired times the mean billable
// size the sample measured per expired item read whole. False when the
// sample read no expired item whole while expired is above zero (the size
// is then unknown, not zero).
func (r SampleResult) BacklogBytes(expired float64) ([]float64, bool) {
	out := make([]float64, 1+len(r.Indexes))
	if !(expired > 0) {
		return out, expired == 0
	}
	if r.ExpiredSized == 0 {
		return nil, false
	}
	k := expired / float64(r.ExpiredSized)
	out[0] = r.ExpiredBytes * k
	for i, b := range r.IndexExpiredBytes {
		out[1+i] = b * k
	}
	return out, true
}

// Counts sums the class counts over the segments read.
func (r SampleResult) Counts() [ttl.NumClasses]int64 {
	var out [ttl.NumClasses]int64
	for _, s := range r.Sample.Segments {
		for c, n := range s.ByClass {
			out[c] += n
		}
	}
	return out
}

// SampleTable reads random whole segments of a parallel Scan of the table,
// projecting only the key attributes and the TTL attribute, and classifies
// every item. When most of its first WholeItemsProbeItems items lack the TTL
// attribute (or
// opts.WholeItems), it reads whole items instead, from the start of that
// segment, and tallies the other top-level attributes that hold epoch
// times (ttl.CandidateTally). No item key or value leaves this function:
// only counts, durations and attribute names do.
func SampleTable(ctx context.Context, api awsclient.DynamoDBAPI, desc *types.TableDescription, opts SampleOptions) (SampleResult, error) {
	if desc == nil || desc.TableName == nil {
		return SampleResult{}, fmt.Errorf("sampling: no table description")
	}
	name := aws.ToString(desc.TableName)
	if opts.Attribute == "" {
		return SampleResult{}, fmt.Errorf("sampling table %s: no TTL attribute", name)
	}
	rng := opts.Rand
	if rng == nil {
		rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	}
	pace := opts.Pace
	if pace == nil {
		pace = sleep
	}
	names := map[string]string{"#ttl": opts.Attribute}
	projection := "#ttl"
	keys := map[string]bool{}
	for i, k := range desc.KeySchema {
		ph := "#k" + strconv.Itoa(i)
		names[ph] = aws.ToString(k.AttributeName)
		keys[aws.ToString(k.AttributeName)] = true
		projection += ", " + ph
	}
	r := &pageReader{api: api, opts: opts, pace: pace, table: name, whole: opts.WholeItems, probe: !opts.WholeItems,
		probeTarget: min(WholeItemsProbeItems, max(1, int64(opts.SampleItems)/4)),
		isKey:       func(n string) bool { return keys[n] }}
	r.res.WholeItems = r.whole
	projs := gsiProjections(desc)
	for _, p := range projs {
		r.res.Indexes = append(r.res.Indexes, p.Index)
	}
	r.res.IndexExpiredBytes = make([]float64, len(projs))
	scan := func() *dynamodb.ScanInput {
		in := &dynamodb.ScanInput{
			TableName:              aws.String(name),
			ConsistentRead:         aws.Bool(false),
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
			Limit:                  aws.Int32(scanPageLimit),
		}
		if !r.whole {
			in.ProjectionExpression, in.ExpressionAttributeNames = aws.String(projection), names
		}
		return in
	}
	items := aws.ToInt64(desc.ItemCount)
	if items <= 0 {
		// DynamoDB has not published the item count yet (it refreshes it
		// about every six hours, so a new or imported table reads 0), or
		// an emulator never does: plan without it.
		var done bool
		var err error
		items, done, err = r.sizeFromStart(ctx, scan(), aws.ToInt64(desc.TableSizeBytes))
		if err != nil || done || r.res.SizeUnknown {
			return r.res, err
		}
	}
	total, planned := planSegments(items, opts.SampleItems)
	order := rng.Perm(total)[:planned]
	r.res.Planned = planned
	r.res.Sample = ttl.Sample{TotalSegments: total, TableItems: aws.ToInt64(desc.ItemCount)}
	r.single = total == 1
	for done, seg := range order {
		in := scan()
		if total > 1 {
			in.Segment = aws.Int32(int32(seg))
			in.TotalSegments = aws.Int32(int32(total))
		}
		tally := segmentTally{counts: ttl.SegmentCounts{Segment: seg}, whole: r.whole, projs: projs, gsiBytes: make([]float64, len(projs))}
		finished, err := r.read(ctx, in, &tally, 0)
		if err != nil {
			return r.res, fmt.Errorf("scanning segment %d of %d of table %s: %w", seg, total, name, err)
		}
		if !finished {
			// The budget ran out: the segment is incomplete, leave it out.
			return r.res, nil
		}
		r.res.keep(&tally)
		if opts.Progress != nil {
			opts.Progress(done+1, planned)
		}
	}
	r.res.Complete = true
	return r.res, nil
}

// segmentTally accumulates what one segment's items say.
type segmentTally struct {
	counts    ttl.SegmentCounts
	live      []float64
	oldest    time.Duration
	oldestTTL float64
	// whole is true when the segment is read whole from its start; cand
	// is filled then.
	whole bool
	cand  ttl.CandidateTally
	// The billable size of the expired items read whole, in the table
	// and in each GSI of projs (SampleResult.ExpiredBytes).
	projs    []ttl.Projection
	sized    int64
	bytes    float64
	gsiBytes []float64
}

func (t *segmentTally) add(item map[string]types.AttributeValue, attr string, now time.Time) {
	c := ttl.Classify(item, attr, now)
	t.counts.Add(c)
	switch c {
	case ttl.Live:
		if at, ok := epochSeconds(item[attr]); ok {
			t.live = append(t.live, at-float64(now.Unix()))
		}
	case ttl.Expired:
		if at, ok := epochSeconds(item[attr]); ok {
			if age := time.Duration((float64(now.Unix()) - at) * float64(time.Second)); age > t.oldest {
				t.oldest, t.oldestTTL = age, at
			}
		}
		if t.whole {
			t.sized++
			t.bytes += float64(ttl.ItemBytes(item) + ttl.StorageOverhead)
			for i, p := range t.projs {
				if n, in := p.EntryBytes(item); in {
					t.gsiBytes[i] += float64(n + ttl.StorageOverhead)
				}
			}
		}
	}
}

// keep adds a completely read segment to the sample.
func (r *SampleResult) keep(t *segmentTally) {
	r.Sample.Segments = append(r.Sample.Segments, t.counts)
	if t.whole {
		r.Candidates = append(r.Candidates, ttl.SegmentCandidates{Segment: t.counts.Segment, Items: t.counts.Items, Tally: t.cand})
	}
	r.LiveRemaining = append(r.LiveRemaining, t.live...)
	r.ExpiredSized += t.sized
	r.ExpiredBytes += t.bytes
	for i, b := range t.gsiBytes {
		r.IndexExpiredBytes[i] += b
	}
	if t.oldest > r.OldestExpiredAge {
		r.OldestExpiredAge, r.OldestExpiredTTL = t.oldest, t.oldestTTL
	}
}

// pageReader reads Scan pages within the sample's budget and read rate.
type pageReader struct {
	api   awsclient.DynamoDBAPI
	opts  SampleOptions
	pace  func(context.Context, time.Duration) error
	table string
	res   SampleResult
	// whole reads every top-level attribute; probe is true until the
	// first probeTarget items (or the whole table, when single) have
	// decided whether to, counting probeSeen items of which probeMissing
	// lack the TTL attribute.
	whole, probe, single    bool
	probeTarget             int64
	probeSeen, probeMissing int64
	isKey                   func(name string) bool
	// lastPage is the items and consumed units of the last page read.
	lastPage struct {
		items int
		units float64
	}
}

// read scans in page by page into t until the scan ends (finished), maxItems
// items were read (maxItems > 0), or the budget runs out.
func (r *pageReader) read(ctx context.Context, in *dynamodb.ScanInput, t *segmentTally, maxItems int64) (finished bool, err error) {
	for {
		if r.res.ConsumedReadUnits >= r.opts.Budget || (maxItems > 0 && t.counts.Items >= maxItems) {
			return false, nil
		}
		out, err := r.api.Scan(ctx, in)
		if err != nil {
			return false, err
		}
		units := 0.0
		if out.ConsumedCapacity != nil {
			units = aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)
		}
		r.res.ConsumedReadUnits += units
		r.lastPage.items, r.lastPage.units = len(out.Items), units
		for _, item := range out.Items {
			t.add(item, r.opts.Attribute, r.opts.Now)
			if t.whole {
				t.cand.Add(item, r.opts.Attribute, r.isKey, r.opts.Now)
			}
			if r.probe {
				r.probeSeen++
				if _, ok := item[r.opts.Attribute]; !ok {
					r.probeMissing++
				}
			}
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
		if r.probe && (r.probeSeen >= r.probeTarget || (r.single && len(out.LastEvaluatedKey) == 0 && r.probeSeen > 0)) {
			r.probe = false
			if float64(r.probeMissing) > WholeItemsMissingShare*float64(r.probeSeen) {
				// Most items lack the TTL attribute: read this segment
				// again from its start, and the next ones, whole (same
				// read units per page).
				r.whole, r.res.WholeItems = true, true
				in.ProjectionExpression, in.ExpressionAttributeNames, in.ExclusiveStartKey = nil, nil, nil
				*t = segmentTally{counts: ttl.SegmentCounts{Segment: t.counts.Segment}, whole: true}
				if err := r.paceFor(ctx, units); err != nil {
					return false, err
				}
				continue
			}
		}
		if err := r.paceFor(ctx, units); err != nil {
			return false, err
		}
		if len(out.LastEvaluatedKey) == 0 {
			return true, nil
		}
	}
}

// paceFor waits as long as reading units takes at the maximum read rate.
func (r *pageReader) paceFor(ctx context.Context, units float64) error {
	if r.opts.MaxReadRate > 0 && units > 0 {
		return r.pace(ctx, time.Duration(units/r.opts.MaxReadRate*float64(time.Second)))
	}
	return nil
}

// sizeFromStart plans a table whose item count DynamoDB does not report.
// It reads the table from its start, without segments:
//   - if the table ends within one sample's items, that read is the sample:
//     every item, exact (done);
//   - else, when DynamoDB reports the table's size in bytes, the item count
//     is estimated from it and the first page's average item size (consumed
//     units × 8 KB per item read), and the caller samples random segments
//     as usual; the first page is not part of the sample (it is not a
//     random segment);
//   - else the size is unknown and larger than a sample: nothing is
//     sampled (SizeUnknown), rather than a full scan that cannot finish
//     within the budget.
func (r *pageReader) sizeFromStart(ctx context.Context, in *dynamodb.ScanInput, sizeBytes int64) (items int64, done bool, err error) {
	tally := segmentTally{whole: r.whole}
	r.single = true
	limit := int64(r.opts.SampleItems)
	if sizeBytes > 0 {
		limit = 1 // one page is enough to learn the item size
	}
	finished, err := r.read(ctx, in, &tally, limit)
	if err != nil {
		return 0, false, fmt.Errorf("scanning table %s from its start (its item count is not published yet): %w", r.table, err)
	}
	if finished {
		r.res.Planned = 1
		r.res.Sample = ttl.Sample{TotalSegments: 1}
		r.res.keep(&tally)
		r.res.Complete = true
		return tally.counts.Items, true, nil
	}
	if sizeBytes > 0 && r.lastPage.items > 0 && r.lastPage.units > 0 {
		perItem := r.lastPage.units * eventuallyConsistentBytesPerUnit / float64(r.lastPage.items)
		return max(int64(float64(sizeBytes)/perItem), tally.counts.Items+1), false, nil
	}
	if r.res.ConsumedReadUnits >= r.opts.Budget {
		// The budget ran out before the table did: an ordinary partial
		// sample with no segment read.
		return 0, true, nil
	}
	r.res.SizeUnknown = true
	return 0, false, nil
}

// planSegments chooses the parallel-scan size and how many random segments
// to read: the whole table when it is no bigger than the sample, else
// segments of about ttl.DefaultItemsPerSegment items.
func planSegments(items int64, sampleItems int) (total, planned int) {
	if items <= int64(sampleItems) {
		return 1, 1
	}
	total, planned, ok := ttl.Plan(items, sampleItems, ttl.DefaultItemsPerSegment)
	if !ok || total < 1 || planned < 1 {
		return 1, 1
	}
	return total, planned
}

// epochSeconds reads a Number attribute as seconds.
func epochSeconds(av types.AttributeValue) (float64, bool) {
	n, ok := av.(*types.AttributeValueMemberN)
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(n.Value, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// gsiProjections returns what each GSI of desc holds of an item, sorted by
// index name (as Table.IndexNames); a GSI whose projection DescribeTable
// does not state is left out (its backlog is not guessed).
func gsiProjections(desc *types.TableDescription) []ttl.Projection {
	var tableKeys []string
	for _, k := range desc.KeySchema {
		tableKeys = append(tableKeys, aws.ToString(k.AttributeName))
	}
	var out []ttl.Projection
	for _, g := range desc.GlobalSecondaryIndexes {
		if g.Projection == nil || g.Projection.ProjectionType == "" {
			continue
		}
		p := ttl.Projection{Index: aws.ToString(g.IndexName), Keys: append([]string(nil), tableKeys...),
			Type: g.Projection.ProjectionType, NonKey: g.Projection.NonKeyAttributes}
		for _, k := range g.KeySchema {
			p.IndexKeys = append(p.IndexKeys, aws.ToString(k.AttributeName))
			p.Keys = append(p.Keys, aws.ToString(k.AttributeName))
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out
}
