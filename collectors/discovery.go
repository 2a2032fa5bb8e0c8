// Discovery: DynamoDB ListTables per target, filtered by name patterns; the
// targets are listed concurrently.
package collectors

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
)

// DiscoverySettings tune the discovery collector.
type DiscoverySettings struct {
	// Filter selects the tables by name (the tag filters are applied by
	// the table collector, which reads the tags).
	Filter config.TableFilter
	// Shard is this replica's share of the tables; the zero Shard keeps
	// every table.
	Shard config.Shard
}

// Discovery lists the tables of every target and keeps those whose names
// pass the include and exclude patterns and that belong to this replica's
// shard. It emits no metrics of its own.
type Discovery struct {
	targets   []*awsclient.Target
	settings  DiscoverySettings
	inventory *Inventory
	logger    *slog.Logger
}

// NewDiscovery returns the discovery collector.
func NewDiscovery(deps Deps, s DiscoverySettings) *Discovery {
	d := &Discovery{targets: deps.Targets, settings: s, inventory: deps.Inventory}
	d.logger = deps.logger(d.Name())
	return d
}

// Name implements Collector.
func (d *Discovery) Name() string { return "discovery" }

// Metrics implements Collector; discovery has none.
func (d *Discovery) Metrics() []prometheus.Metric { return nil }

// Run implements Collector. A target whose listing fails keeps its previous
// list. Targets are listed concurrently: a region that hangs delays no other.
func (d *Discovery) Run(ctx context.Context, _ time.Time) error {
	return eachTarget(d.targets, maxTargetsInFlight, nil, func(_ int, t *awsclient.Target) ([]prometheus.Metric, error) {
		return nil, d.runTarget(ctx, t)
	})
}

func (d *Discovery) runTarget(ctx context.Context, t *awsclient.Target) error {
	names, err := listTables(ctx, t.DynamoDB)
	if err != nil {
		return fmt.Errorf("listing tables in %s: %w", t.Key(), err)
	}
	var kept []string
	selected := 0
	for _, n := range names {
		if !d.settings.Filter.SelectsName(n) {
			continue
		}
		selected++
		if d.settings.Shard.Owns(t.Account, t.Region, n) {
			kept = append(kept, n)
		}
	}
	d.inventory.SetNames(t.Key(), kept, selected)
	d.logger.Debug("tables discovered", "account", t.Account, "region", t.Region, "listed", len(names), "selected", selected, "kept", len(kept), "shard", d.settings.Shard.String())
	return nil
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
