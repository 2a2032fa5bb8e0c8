package main

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"
)

// BenchmarkReplayDemo72h replays the demo scenario for 72 simulated hours at
// a 1-minute step, through the real exporter and the simulated account over
// loopback HTTP, and writes the OpenMetrics output to io.Discard.
func BenchmarkReplayDemo72h(b *testing.B) {
	sc, err := loadScenario("demo")
	if err != nil {
		b.Fatal(err)
	}
	start := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	logger := slog.New(slog.DiscardHandler)
	for b.Loop() {
		if err := runReplay(context.Background(), sc, start, 72*time.Hour, time.Minute, "openmetrics", io.Discard, logger, nil); err != nil {
			b.Fatal(err)
		}
	}
}
