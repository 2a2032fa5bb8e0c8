package replay_test

import (
	"strings"
	"testing"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/replay"
)

// TestEpochFamiliesAreTheTimestamps checks that the families the promtool
// output shifts (catalogue unit "seconds since epoch") are exactly those
// named *_timestamp_seconds, as Prometheus's naming guidance has it: a new
// timestamp family with another unit would reach promtool unshifted.
func TestEpochFamiliesAreTheTimestamps(t *testing.T) {
	epoch := replay.EpochFamilies()
	if len(epoch) == 0 {
		t.Fatal("no family in seconds since epoch")
	}
	for _, f := range catalogue.All() {
		if named := strings.HasSuffix(f.Name, "_timestamp_seconds"); named != epoch[f.Name] {
			t.Errorf("%s: unit %q, named as a timestamp: %v", f.Name, f.Unit, named)
		}
	}
}
