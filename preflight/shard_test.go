package preflight_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/preflight"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// TestAccountLevelSeriesOnShardZero: the account-level series (UserErrors)
// are planned by shard 0 even when every table of the region belongs to
// another shard, and by no other shard, so exactly one replica reports
// them; check prints the empty share.
func TestAccountLevelSeriesOnShardZero(t *testing.T) {
	sim := awssim.New(awssim.WithClock(clock.NewManual(now)))
	var names []string
	for i := 0; len(names) < 4; i++ {
		if n := fmt.Sprintf("t-%d", i); config.ShardOf("default", "us-east-1", n, 2) == 1 {
			names = append(names, n)
		}
	}
	for _, n := range names {
		if err := sim.PutTable("us-east-1", awssim.Table{
			Name: n, BillingMode: awssim.BillingPayPerRequest, CreationDateTime: now.Add(-24 * time.Hour),
			KeySchema:            []awssim.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
			AttributeDefinitions: []awssim.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		}); err != nil {
			t.Fatal(err)
		}
	}
	series := map[string]int{}
	for _, shard := range []string{"0/2", "1/2", "0/1"} {
		app := build(t, sim, "accounts: [{regions: [us-east-1]}]\nshard: "+shard+"\ncollectors: {ttl: {enabled: false}, capacity: {enabled: false}}\n")
		var out bytes.Buffer
		res := preflight.Run(context.Background(), app, &out)
		series[shard] = res.Queried + res.ProvenZero
		if shard == "0/2" {
			if res.Tables != 0 || !strings.Contains(out.String(), "shard 0/2: 0 of the 4 tables that pass the name filters (0%)") {
				t.Errorf("shard 0/2 check:\n%s", out.String())
			}
		}
	}
	// Shard 0: the account's series only (UserErrors and the two
	// provisioned-utilization metrics); shard 1: its four tables' series,
	// no account series; together the unsharded plan (0/1).
	if series["0/2"] != 3 {
		t.Errorf("shard 0/2 plans %d series, want 3 (the account's UserErrors and provisioned utilization)", series["0/2"])
	}
	if series["1/2"] == 0 || series["0/2"]+series["1/2"] != series["0/1"] {
		t.Errorf("shards plan %d + %d series, unsharded %d", series["0/2"], series["1/2"], series["0/1"])
	}
}
