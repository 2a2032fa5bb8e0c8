package exposition_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/exposition"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
)

// table is a provisioned table of the simulated account.
func table(name string) awssim.Table {
	return awssim.Table{
		Name:                 name,
		BillingMode:          awssim.BillingProvisioned,
		ItemCount:            1000,
		SizeBytes:            1 << 20,
		Throughput:           awssim.Throughput{ReadCapacityUnits: 10, WriteCapacityUnits: 5},
		KeySchema:            []awssim.KeyElement{{AttributeName: "pk", KeyType: "HASH"}},
		AttributeDefinitions: []awssim.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}},
		TTL:                  awssim.TimeToLive{Status: awssim.TTLDisabled},
	}
}

// Every scheduler run announces its snapshot to the app's handler, which
// encodes it in the background: the scrape after a cycle serves the new
// tables with nothing encoded on its path.
func TestAppHandlerEncodesEveryRunInBackground(t *testing.T) {
	clk := clock.NewManual(time.Date(2026, 11, 20, 12, 0, 30, 0, time.UTC))
	sim := awssim.New(awssim.WithClock(clk))
	if err := sim.PutTable("us-east-1", table("orders")); err != nil {
		t.Fatal(err)
	}
	app, _ := harnesstest.Exporter(t, sim, clk, "accounts: [{regions: [us-east-1]}]\n", harness.RunOptions{})
	// At the root, the app's handler is the cache itself.
	handler, err := app.Handler("/", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	x, ok := handler.(*exposition.Cache)
	if !ok {
		t.Fatalf("the app's handler at / is a %T, want the exposition cache", handler)
	}
	cycle := func() { app.Scheduler.RunOnce(context.Background()) }
	tableInfos := func() int {
		t.Helper()
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
		return strings.Count(rec.Body.String(), catalogue.TableInfo+"{")
	}
	if n := tableInfos(); n != 0 {
		t.Fatalf("before any cycle: %d table_info series", n)
	}
	cycle()
	x.WaitEncoded(t)
	if n := tableInfos(); n != 1 {
		t.Errorf("after the first cycle: %d table_info series, want orders", n)
	}
	if err := sim.PutTable("us-east-1", table("payments")); err != nil {
		t.Fatal(err)
	}
	cycle()
	x.WaitEncoded(t)
	if n := tableInfos(); n != 2 {
		t.Errorf("after the second cycle: %d table_info series, want orders and payments", n)
	}
	if n := x.EncodingsOnRequest(); n != 1 {
		t.Errorf("%d encodings on the request path, want 1 (the first scrape)", n)
	}
	if x.GatheredTogether() {
		t.Error("the collectors' families overlap: every publish re-encodes every collector's snapshot")
	}
	if n := x.Generations(); n < 3 {
		t.Errorf("%d generations built, want one per cycle at least (3)", n)
	}
	runtime.KeepAlive(handler)
}
