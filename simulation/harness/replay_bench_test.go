package harness_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
)

// BenchmarkReplayDemo72h replays the demo scenario for 72 simulated hours at
// a 1-minute step, through the real exporter and the simulated account over
// loopback HTTP, and writes the OpenMetrics output to io.Discard.
func BenchmarkReplayDemo72h(b *testing.B) {
	sc, err := harness.LoadScenario("demo")
	if err != nil {
		b.Fatal(err)
	}
	start := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	logger := slog.New(slog.DiscardHandler)
	span := 72 * time.Hour
	if testing.Short() {
		// scripts/test runs every benchmark once with -short, to prove it
		// runs, not to time it: 6 hours keep the step within a minute.
		span = 6 * time.Hour
	}
	for b.Loop() {
		if err := harness.Replay(context.Background(), sc, harness.ReplayOptions{Start: start, Duration: span, Step: time.Minute, Format: "openmetrics", Logger: logger}, io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
