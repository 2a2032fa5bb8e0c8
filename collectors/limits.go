// Account and table quotas: DynamoDB DescribeLimits once an hour per
// target (account and region).
package collectors

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// LimitsInterval is how often DescribeLimits is read per account and
// region. The quotas change only when AWS grants a quota increase (a
// request to Service Quotas or support, answered in hours or days), so an
// hour bounds how stale a granted increase can look, at 24 calls a day per
// region: nothing next to the table reads.
const LimitsInterval = time.Hour

// Limits are one account's provisioned-throughput quotas in one region,
// as DescribeLimits answered them. A quota AWS left out is 0 (unknown).
type Limits struct {
	AccountMaxRead, AccountMaxWrite float64
	TableMaxRead, TableMaxWrite     float64
	// ReadAt is when DescribeLimits was last asked (answered or denied).
	ReadAt time.Time
	// Known is false until DescribeLimits has answered once.
	Known bool
}

// SetLimits records the quotas of a target.
func (i *Inventory) SetLimits(target string, l Limits) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.limits == nil {
		i.limits = map[string]Limits{}
	}
	i.limits[target] = l
}

// Limits returns the quotas of a target; ok is false until DescribeLimits
// has answered once.
func (i *Inventory) Limits(target string) (l Limits, ok bool) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	l = i.limits[target]
	return l, l.Known
}

// readLimits reads DescribeLimits for t when the last read is older than
// LimitsInterval and records the answer in the inventory. A denied call is
// not asked again before an interval has passed (a permission does not come
// back by itself); any other error keeps the last answer and is retried at
// the next run. The error is returned to be counted either way.
func (c *Tables) readLimits(ctx context.Context, t *awsclient.Target, now time.Time) error {
	prev, _ := c.inventory.limitsRecord(t.Key())
	if !prev.ReadAt.IsZero() && now.Sub(prev.ReadAt) < LimitsInterval {
		return nil
	}
	out, err := t.DynamoDB.DescribeLimits(ctx, &dynamodb.DescribeLimitsInput{})
	if err != nil {
		if awsclient.IsAccessDenied(err) {
			prev.ReadAt = now
			c.inventory.SetLimits(t.Key(), prev)
		}
		return fmt.Errorf("describing limits in %s: %w", t.Key(), err)
	}
	c.inventory.SetLimits(t.Key(), Limits{
		AccountMaxRead:  float64(aws.ToInt64(out.AccountMaxReadCapacityUnits)),
		AccountMaxWrite: float64(aws.ToInt64(out.AccountMaxWriteCapacityUnits)),
		TableMaxRead:    float64(aws.ToInt64(out.TableMaxReadCapacityUnits)),
		TableMaxWrite:   float64(aws.ToInt64(out.TableMaxWriteCapacityUnits)),
		ReadAt:          now, Known: true,
	})
	return nil
}

// limitsRecord returns the stored record of a target, known or not.
func (i *Inventory) limitsRecord(target string) (Limits, bool) {
	i.mu.RLock()
	defer i.mu.RUnlock()
	l, ok := i.limits[target]
	return l, ok
}

// limitsMetrics are the quota families of t: one series per quota AWS
// answered with a positive value; none before the first answer (a quota
// left out of the answer stays absent, never 0).
func limitsMetrics(t *awsclient.Target, l Limits, ok bool) []prometheus.Metric {
	if !ok {
		return nil
	}
	var ms []prometheus.Metric
	for _, q := range []struct {
		name, dim string
		v         float64
	}{
		{catalogue.QuotaAccountMaxCapacityUnits, "read", l.AccountMaxRead},
		{catalogue.QuotaAccountMaxCapacityUnits, "write", l.AccountMaxWrite},
		{catalogue.QuotaTableMaxCapacityUnits, "read", l.TableMaxRead},
		{catalogue.QuotaTableMaxCapacityUnits, "write", l.TableMaxWrite},
	} {
		if q.v > 0 {
			ms = append(ms, catalogue.MustMetric(q.name, q.v, t.Account, t.Region, q.dim))
		}
	}
	return ms
}

// tableMax is the table-level quota of dimension ("read" or "write"); 0
// when unknown.
func (l Limits) tableMax(dimension string) float64 {
	if dimension == "read" {
		return l.TableMaxRead
	}
	return l.TableMaxWrite
}
