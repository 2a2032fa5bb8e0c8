package sim

import (
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// BenchmarkDemoStartup builds the demo scenario (13 tables, 90 days of
// history at 1-minute resolution) on a fresh server.
func BenchmarkDemoStartup(b *testing.B) {
	sc := builtin(b, "demo")
	for b.Loop() {
		clk := clock.NewManual(t0)
		if _, err := New(sc, awssim.New(awssim.WithClock(clk)), clk); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAdvance72h advances the demo 72 simulated hours.
func BenchmarkAdvance72h(b *testing.B) {
	sc := builtin(b, "demo")
	for b.Loop() {
		b.StopTimer()
		clk := clock.NewManual(t0)
		eng, err := New(sc, awssim.New(awssim.WithClock(clk)), clk)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := eng.AdvanceTo(clk.Advance(72 * time.Hour)); err != nil {
			b.Fatal(err)
		}
	}
}
