// Discovery: DynamoDB ListTables per target, filtered by name patterns; the
// targets are listed concurrently.
package collectors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
)

// Discovery lists the tables of every target and keeps those whose names
// pass the include and exclude patterns and that belong to this replica's
// shard. It emits no metrics of its own.
type Discovery struct {
	targets   []*awsclient.Target
	filter    config.TableFilter
	shard     config.Shard
	inventory *Inventory
	logger    *slog.Logger
}

// NewDiscovery returns the discovery collector; shard is this replica's
// share of the tables (the zero Shard keeps every table).
func NewDiscovery(targets []*awsclient.Target, filter config.TableFilter, shard config.Shard, inv *Inventory, logger *slog.Logger) *Discovery {
	return &Discovery{targets: targets, filter: filter, shard: shard, inventory: inv, logger: logger}
}

// Name implements Collector.
func (d *Discovery) Name() string { return "discovery" }

// Metrics implements Collector; discovery has none.
func (d *Discovery) Metrics() []prometheus.Metric { return nil }

// Run implements Collector. A target whose listing fails keeps its previous
// list. Targets are listed concurrently: a region that hangs delays no other.
func (d *Discovery) Run(ctx context.Context, _ time.Time) error {
	errs := make([]error, len(d.targets))
	eachTargetAtOnce(d.targets, func(i int, t *awsclient.Target) {
		errs[i] = d.runTarget(ctx, t)
	})
	return errors.Join(errs...)
}

func (d *Discovery) runTarget(ctx context.Context, t *awsclient.Target) error {
	names, err := listTables(ctx, t.DynamoDB)
	if err != nil {
		d.logger.Warn("listing tables failed; keeping the previous list", "account", t.Account, "region", t.Region, "error_code", awsclient.ErrorCode(err), "err", err)
		return forTarget(t, fmt.Errorf("listing tables in %s: %w", t.Key(), err))
	}
	var kept []string
	selected := 0
	for _, n := range names {
		if !d.filter.SelectsName(n) {
			continue
		}
		selected++
		if d.shard.Owns(t.Account, t.Region, n) {
			kept = append(kept, n)
		}
	}
	d.inventory.SetNames(t.Key(), kept, selected)
	d.logger.Debug("tables discovered", "account", t.Account, "region", t.Region, "listed", len(names), "selected", selected, "kept", len(kept), "shard", d.shard.String())
	return nil
}

// maxTargetsInFlight bounds how many accounts and regions the discovery,
// tables and autoscaling collectors read at once.
const maxTargetsInFlight = 8

// eachTargetAtOnce calls fn for every target (i its index), up to
// maxTargetsInFlight at a time, and returns when every call has: a target
// whose calls hang holds back no other. fn must only touch its own
// target's state, or lock.
func eachTargetAtOnce(targets []*awsclient.Target, fn func(i int, t *awsclient.Target)) {
	sem := make(chan struct{}, maxTargetsInFlight)
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			fn(i, t)
		}()
	}
	wg.Wait()
}

func listTables(ctx context.Context, api awsclient.DynamoDBAPI) ([]string, error) {
	var names []string
	p := dynamodb.NewListTablesPaginator(api, &dynamodb.ListTablesInput{})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		names = append(names, page.TableNames...)
	}
	return names, nil
}
