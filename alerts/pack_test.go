package alerts

import (
	"slices"
	"testing"
)

// TestPerExporter pins the rewriting of grouping lists: by (...) and on
// (...) gain job and instance; other lists, empty lists, and words that end
// in "on" or "by" are left alone.
func TestPerExporter(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`sum by (account, region) (x)`, `sum by (account, region, job, instance) (x)`},
		{`sum by(account) (x)`, `sum by(account, job, instance) (x)`},
		{`sum(x) by (table)`, `sum(x) by (table, job, instance)`},
		{`a / on (account, table) b`, `a / on (account, table, job, instance) b`},
		{`a and on (table, instance) b`, `a and on (table, instance, job) b`},
		{`a and on (job, instance) b`, `a and on (job, instance) b`},
		{`a * on (table) group_left (ttl_attribute) b`, `a * on (table, job, instance) group_left (ttl_attribute) b`},
		{`a / ignoring (mode) b`, `a / ignoring (mode) b`},
		{`sum without (index) (x)`, `sum without (index) (x)`},
		{`sum by () (x)`, `sum by () (x)`},
		{`a / on () b`, `a / on () b`},
		{`label_replace(x, "dimension", "$1", "kind", "(.*)")`, `label_replace(x, "dimension", "$1", "kind", "(.*)")`},
		{`region (x) and standby (y)`, `region (x) and standby (y)`},
	} {
		if got := perExporter(tc.in); got != tc.want {
			t.Errorf("perExporter(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestEveryAlertNamesItsExporter requires every alert of the pack, except
// DynamoDBExporterDown's own up series, to carry the job and instance of
// the exporter that reported it (inferred from its PromQL): the inhibition
// of alertmanager.yml that silences a down exporter's alerts matches on
// them, and an alert without them would be silenced for every exporter.
func TestEveryAlertNamesItsExporter(t *testing.T) {
	for alert, labels := range alertLabels(t) {
		for _, l := range targetLabels {
			if !slices.Contains(labels, l) {
				t.Errorf("%s carries %v, not %s: an aggregation or one-to-one join drops it", alert, labels, l)
			}
		}
	}
}
