package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
)

// replayCmd runs a scenario and the exporter in fast-forward.
type replayCmd struct {
	Scenario string        `required:"" help:"Scenario to replay: a built-in name (${scenarios}) or a YAML file."`
	Duration time.Duration `help:"Simulated time to replay." default:"72h"`
	Step     time.Duration `help:"Scrape interval of the replay." default:"1m"`
	Start    string        `help:"Scenario start, RFC 3339 (default: the scenario's own start, else now minus --duration, so the replay ends now)."`
	Output   string        `short:"o" help:"File to write (default: standard output)."`
	Format   string        `help:"openmetrics (for promtool tsdb create-blocks-from openmetrics) or promtool (input_series for promtool test rules)." default:"openmetrics" enum:"openmetrics,promtool"`
	logFlags
}

// Run replays the scenario and writes what Prometheus would have scraped.
func (c *replayCmd) Run(ctx context.Context) error {
	sc, err := loadScenario(c.Scenario)
	if err != nil {
		return err
	}
	start := time.Now().UTC().Add(-c.Duration).Truncate(time.Minute)
	if c.Start != "" {
		if start, err = time.Parse(time.RFC3339, c.Start); err != nil {
			return fmt.Errorf("--start %q: %w", c.Start, err)
		}
	}
	var w io.Writer = os.Stdout
	if c.Output != "" {
		f, err := os.Create(c.Output)
		if err != nil {
			return fmt.Errorf("--output: %w", err)
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriter(w)
	progress := func(done, total int) {
		if done%600 == 0 || done == total {
			fmt.Fprintf(os.Stderr, "replayed %d/%d steps\n", done, total)
		}
	}
	if err := harness.Replay(ctx, sc, harness.ReplayOptions{Start: start, Duration: c.Duration, Step: c.Step,
		Format: c.Format, Logger: c.logger(os.Stderr), Progress: progress}, bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing the replay: %w", err)
	}
	return nil
}
