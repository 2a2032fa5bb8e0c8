package collectors

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
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

// unknownSizeSegments is the parallel-scan size used when DynamoDB reports no
// item count (emulators): every segment is read, in random order, until the
// budget runs out.
const unknownSizeSegments = 16

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
// every item. No item key or value leaves this function: only counts and
// durations do.
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
	items := aws.ToInt64(desc.ItemCount)
	total, planned := planSegments(items, opts.SampleItems)
	order := rng.Perm(total)[:planned]

	names := map[string]string{"#ttl": opts.Attribute}
	projection := "#ttl"
	for i, k := range desc.KeySchema {
		ph := "#k" + strconv.Itoa(i)
		names[ph] = aws.ToString(k.AttributeName)
		projection += ", " + ph
	}
	res := SampleResult{Planned: planned, Sample: ttl.Sample{TotalSegments: total, TableItems: items}}
	for done, seg := range order {
		counts := ttl.SegmentCounts{Segment: seg}
		var live []float64
		var oldest time.Duration
		var oldestTTL float64
		in := &dynamodb.ScanInput{
			TableName:                aws.String(name),
			ProjectionExpression:     aws.String(projection),
			ExpressionAttributeNames: names,
			ConsistentRead:           aws.Bool(false),
			ReturnConsumedCapacity:   types.ReturnConsumedCapacityTotal,
			Limit:                    aws.Int32(scanPageLimit),
		}
		if total > 1 {
			in.Segment = aws.Int32(int32(seg))
			in.TotalSegments = aws.Int32(int32(total))
		}
		finished := false
		for !finished {
			if res.ConsumedReadUnits >= opts.Budget {
				// The segment is incomplete: leave it out of the sample.
				return res, nil
			}
			out, err := api.Scan(ctx, in)
			if err != nil {
				return res, fmt.Errorf("scanning segment %d of %d of table %s: %w", seg, total, name, err)
			}
			units := 0.0
			if out.ConsumedCapacity != nil {
				units = aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)
			}
			res.ConsumedReadUnits += units
			for _, item := range out.Items {
				c := ttl.Classify(item, opts.Attribute, opts.Now)
				counts.Add(c)
				switch c {
				case ttl.Live:
					if at, ok := epochSeconds(item[opts.Attribute]); ok {
						live = append(live, at-float64(opts.Now.Unix()))
					}
				case ttl.Expired:
					if at, ok := epochSeconds(item[opts.Attribute]); ok {
						if age := time.Duration((float64(opts.Now.Unix()) - at) * float64(time.Second)); age > oldest {
							oldest, oldestTTL = age, at
						}
					}
				}
			}
			finished = len(out.LastEvaluatedKey) == 0
			in.ExclusiveStartKey = out.LastEvaluatedKey
			if opts.MaxReadRate > 0 && units > 0 {
				if err := pace(ctx, time.Duration(units/opts.MaxReadRate*float64(time.Second))); err != nil {
					return res, err
				}
			}
		}
		res.Sample.Segments = append(res.Sample.Segments, counts)
		res.LiveRemaining = append(res.LiveRemaining, live...)
		if oldest > res.OldestExpiredAge {
			res.OldestExpiredAge, res.OldestExpiredTTL = oldest, oldestTTL
		}
		if opts.Progress != nil {
			opts.Progress(done+1, planned)
		}
	}
	res.Complete = true
	return res, nil
}

// planSegments chooses the parallel-scan size and how many random segments
// to read: the whole table when it is no bigger than the sample, else
// segments of about ttl.DefaultItemsPerSegment items.
func planSegments(items int64, sampleItems int) (total, planned int) {
	if items <= 0 {
		return unknownSizeSegments, unknownSizeSegments
	}
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
