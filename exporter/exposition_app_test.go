package exporter_test

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// Every scheduler run announces its snapshot to the app's handler, which
// encodes it in the background: the scrape after a cycle serves the new
// tables with nothing encoded on its path.
func TestAppHandlerEncodesEveryRunInBackground(t *testing.T) {
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\n", func(sim *awssim.Server) {
		mustPut(sim, "us-east-1", provisioned("orders", 10, 5))
	})
	handler, err := h.app.Handler("/metrics", discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	x := h.app.LastExposition()
	scrape := func() string {
		t.Helper()
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		return rec.Body.String()
	}
	if s := series(t, scrape(), catalogue.TableInfo); len(s) != 0 {
		t.Fatalf("before any cycle: table_info %q", s)
	}
	h.cycle()
	x.WaitEncoded(t)
	if s := series(t, scrape(), catalogue.TableInfo); len(s) != 1 {
		t.Errorf("after the first cycle: table_info %q, want orders", s)
	}
	mustPut(h.sim, "us-east-1", provisioned("payments", 10, 5))
	h.cycle()
	x.WaitEncoded(t)
	if s := series(t, scrape(), catalogue.TableInfo); len(s) != 2 {
		t.Errorf("after the second cycle: table_info %q, want orders and payments", s)
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

// A handler its caller dropped is not kept alive by the app, nor encoded
// on every publish.
func TestAppForgetsDroppedHandlers(t *testing.T) {
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\n", func(sim *awssim.Server) {
		mustPut(sim, "us-east-1", provisioned("orders", 10, 5))
	})
	for range 3 {
		if _, err := h.app.Handler("/metrics", discardLogger()); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	h.cycle()
	if n := h.app.AnnouncedExpositions(); n != 0 {
		t.Errorf("%d handlers still announced to after they were dropped", n)
	}
}
