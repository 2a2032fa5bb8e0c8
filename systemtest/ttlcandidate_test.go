package systemtest

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
)

// TestTTLCandidateOnTheFormatDeployScenario runs the exporter on the
// built-in ttl-format-deploy scenario, where a fifth of the writes has
// always put the expiry under expiresAt while TTL is enabled on ttl: TTL
// deletes the ttl items a day after their write, so at the start most
// stored items are expiresAt items, two weeks of them, nearly all expired.
// The exporter must name expiresAt, with its share of the table and its
// expired backlog within their intervals of the truth counted by a full
// Scan through the SDK. At +8h a backfill copies expiresAt into ttl: an hour
// later no item lacks ttl but for the writes since, the share has collapsed
// and the backlog is gone.
func TestTTLCandidateOnTheFormatDeployScenario(t *testing.T) {
	start := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	run := harnesstest.Run(t, "ttl-format-deploy", start, harness.RunOptions{Collectors: harness.DemoCollectors})
	ddb := dynamodb.NewFromConfig(testtools.AWSConfig(run.Account.Server.URL()))
	// truth counts, by a full Scan, the items lacking ttl that carry
	// expiresAt, and those of them already expired.
	truth := func(now time.Time) (items, carried, expired int) {
		p := dynamodb.NewScanPaginator(ddb, &dynamodb.ScanInput{TableName: aws.String("sessions-ttl-deploy")})
		for p.HasMorePages() {
			out, err := p.NextPage(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range out.Items {
				items++
				if _, ok := it["ttl"]; ok {
					continue
				}
				if n, ok := it["expiresAt"].(*types.AttributeValueMemberN); ok {
					carried++
					if v, _ := strconv.ParseFloat(n.Value, 64); v <= float64(now.Unix()) {
						expired++
					}
				}
			}
		}
		return
	}
	read := func(scrape string) (ratio, est, lo, hi float64, ok bool) {
		parser := expfmt.NewTextParser(model.UTF8Validation)
		fams, err := parser.TextToMetricFamilies(strings.NewReader(scrape))
		if err != nil {
			t.Fatal(err)
		}
		get := func(name string) (float64, bool) {
			f := fams[name]
			if f == nil {
				return 0, false
			}
			for _, m := range f.GetMetric() {
				var table, attr string
				for _, l := range m.GetLabel() {
					switch l.GetName() {
					case "table":
						table = l.GetValue()
					case "attribute":
						attr = l.GetValue()
					}
				}
				if table == "sessions-ttl-deploy" {
					if attr != "expiresAt" {
						t.Errorf("%s names %q, want expiresAt", name, attr)
					}
					return m.GetGauge().GetValue(), true
				}
			}
			return 0, false
		}
		ratio, ok = get(catalogue.TTLCandidateAttributeItemsRatio)
		est, _ = get(catalogue.TTLCandidateExpiredItemsEstimate)
		lo, _ = get(catalogue.TTLCandidateExpiredItemsLowerBound)
		hi, _ = get(catalogue.TTLCandidateExpiredItemsUpperBound)
		return
	}
	scrapeAt := func(at time.Time) string {
		harnesstest.Advance(t, run, at)
		return gatherText(t, run.App)
	}

	items, carried, expired := truth(start)
	ratio, est, lo, hi, ok := read(scrapeAt(start))
	t.Logf("start: %d items, %d lack ttl and carry expiresAt (%.3f), %d of them expired; exporter: share %.3f, expired %.0f [%.0f, %.0f]",
		items, carried, float64(carried)/float64(items), expired, ratio, est, lo, hi)
	if !ok {
		t.Fatal("no candidate attribute named for sessions-ttl-deploy at the start")
	}
	if share := float64(carried) / float64(items); share < 0.5 || ratio < share-0.1 || ratio > share+0.1 {
		t.Errorf("candidate share %.3f, truth %.3f (want the truth above one half and the share within 0.1 of it)", ratio, share)
	}
	if float64(expired) < lo || float64(expired) > hi {
		t.Errorf("candidate expired backlog %.0f [%.0f, %.0f] does not hold the truth %d", est, lo, hi, expired)
	}

	// After the +8h backfill: step the exporter through it.
	var scrape string
	for at := start.Add(5 * time.Minute); !at.After(start.Add(9 * time.Hour)); at = at.Add(5 * time.Minute) {
		scrape = scrapeAt(at)
	}
	items, carried, expired = truth(start.Add(9 * time.Hour))
	ratio, est, _, _, ok = read(scrape)
	t.Logf("+9h: %d items, %d lack ttl and carry expiresAt, %d expired; exporter: named %v, share %.3f, expired %.0f", items, carried, expired, ok, ratio, est)
	if ok && (ratio > 0.2 || est > float64(expired)+50) {
		t.Errorf("after the backfill the candidate share is %.3f and its backlog %.0f; the truth is %d of %d items, %d expired", ratio, est, carried, items, expired)
	}
}
