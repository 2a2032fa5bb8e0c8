package exporter_test

import (
	"runtime"
	"testing"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

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
