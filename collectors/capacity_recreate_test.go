package collectors_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// TestCapacityRecreatedTableStartsAfresh: a table with three days of
// traffic, deleted and re-created under the same name (provisioned now,
// with one GSI instead of two), must not keep feeding the old table's
// traffic into the new one's figures. After the next run the collector's
// figures for it (traffic, peak-to-average, costs of both modes,
// recommendations) equal those of a fresh collector started after the
// re-creation, and the other table's are untouched.
func TestCapacityRecreatedTableStartsAfresh(t *testing.T) {
	sim, url := fetchAccount(t, []string{"us-east-1"}, 2, 3*24*time.Hour)
	target := fetchTarget(t, url, "us-east-1", 0)
	inv := discovered(t, target)
	ctx := context.Background()
	settings := capacitySettings(collectors.FetchSettings{Concurrency: 4, RequestsPerSecond: 1000})
	now := time.Now()
	c := collectors.NewCapacity(collectors.Deps{Targets: []*awsclient.Target{target}, Inventory: inv, Logger: slog.New(slog.DiscardHandler)}, settings)
	if err := c.Run(ctx, now); err != nil {
		t.Fatal(err)
	}
	before, _ := figures(t, withLive(c))

	if !sim.DeleteTable("us-east-1", "t-0000") {
		t.Fatal("no t-0000")
	}
	if err := sim.PutTable("us-east-1", awssim.Table{
		Name: "t-0000", CreationDateTime: now.Add(-5 * time.Hour),
		Throughput: awssim.Throughput{ReadCapacityUnits: 200, WriteCapacityUnits: 100},
		GSIs:       []awssim.GlobalSecondaryIndex{{IndexName: "by-owner"}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := collectors.NewTables(collectors.Deps{Targets: []*awsclient.Target{target}, Inventory: inv, Logger: slog.New(slog.DiscardHandler)}, collectors.TablesSettings{Concurrency: 8}).Run(ctx, time.Now()); err != nil {
		t.Fatal(err)
	}

	later := now.Add(10 * time.Minute)
	if err := c.Run(ctx, later); err != nil {
		t.Fatal(err)
	}
	got, _ := figures(t, withLive(c))
	ref := collectors.NewCapacity(collectors.Deps{Targets: []*awsclient.Target{target}, Inventory: inv, Logger: slog.New(slog.DiscardHandler)}, settings)
	if err := ref.Run(ctx, later); err != nil {
		t.Fatal(err)
	}
	want, _ := figures(t, withLive(ref))

	of := func(lines []string, table string) []string {
		var out []string
		for _, l := range lines {
			if strings.Contains(l, "table="+table+",") || strings.Contains(l, "table="+table+"}") {
				out = append(out, l)
			}
		}
		return out
	}
	g, w := of(got, "t-0000"), of(want, "t-0000")
	if len(w) == 0 {
		t.Fatal("the fresh collector derived no figure for the re-created t-0000: the test proves nothing")
	}
	if slices.Equal(of(before, "t-0000"), w) {
		t.Fatal("the re-created t-0000's figures equal the old table's: the test proves nothing")
	}
	if !slices.Equal(g, w) {
		t.Errorf("re-created t-0000: %d figures, a fresh collector's %d; first difference: %s", len(g), len(w), collectors.FirstLineDiff(g, w))
	}
	for _, l := range g {
		if strings.Contains(l, "by-date") {
			t.Errorf("the old table's GSI by-date still has a figure: %s", l)
		}
	}
	if g, w := of(got, "t-0001"), of(want, "t-0001"); len(w) == 0 {
		t.Error("no figure for t-0001")
	} else if len(g) != len(w) {
		t.Errorf("t-0001: %d figures, a fresh collector's %d", len(g), len(w))
	}
}
