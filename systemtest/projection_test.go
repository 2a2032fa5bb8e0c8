package systemtest

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/sim"
)

// projectionScenario has a table created 10 days before the start (too
// young for a trend: fewer than 14 days with traffic) and one 90 days old
// with flat traffic.
const projectionScenario = `name: projection-cases
history: 90d
tables:
  - name: fresh-table
    billing: on_demand
    created: -10d
    traffic: {read: 20, write: 10, daily: 0.3, noise: 0.05}
  - name: steady-table
    billing: on_demand
    traffic: {read: 20, write: 10, daily: 0.3, weekly: 0.2, noise: 0.2}
`

// TestProjectionBadInputAndDailyRefresh: a table with fewer than 14 days of
// traffic gets no projected cost and its growth gauge says
// history_too_short (value 0: nothing applied); a flat table projects
// today's 30-day cost at both horizons; the projection is computed once a
// UTC day, so it holds still while the 30-day cost moves within the day,
// and is computed afresh after midnight.
func TestProjectionBadInputAndDailyRefresh(t *testing.T) {
	sc, err := sim.LoadScenario([]byte(projectionScenario))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 20, 20, 0, 0, 0, time.UTC)
	run := harnesstest.RunScenario(t, sc, start, harness.RunOptions{Collectors: harness.DemoCollectors})
	value := func(scrape, re string) (float64, bool) {
		m := regexp.MustCompile(re + ` (\S+)`).FindStringSubmatch(scrape)
		if m == nil {
			return 0, false
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		return v, true
	}
	projected := `dynamodb_capacity_projected_monthly_cost_dollars\{account="[^"]*",horizon="24mo",mode="on_demand",region="us-east-1",table="steady-table"\}`
	cost30d := `dynamodb_capacity_cost_dollars\{account="[^"]*",mode="on_demand",region="us-east-1",table="steady-table",window="30d"\}`
	harnesstest.Advance(t, run, start)
	scrape := gatherText(t, run.App)
	if v, ok := value(scrape, `dynamodb_capacity_traffic_growth_yearly_ratio\{account="[^"]*",region="us-east-1",table="fresh-table",trend="history_too_short"\}`); !ok || v != 0 {
		t.Errorf("fresh-table: growth gauge %v (present %v), want history_too_short = 0", v, ok)
	}
	if regexp.MustCompile(`dynamodb_capacity_projected_monthly_cost_dollars\{[^}]*table="fresh-table"`).MatchString(scrape) {
		t.Error("fresh-table: a projected cost without a trend")
	}
	if _, ok := value(scrape, `dynamodb_capacity_traffic_growth_yearly_ratio\{account="[^"]*",region="us-east-1",table="steady-table",trend="flat"\}`); !ok {
		t.Fatalf("steady-table: no flat trend in\n%s", grepLines(scrape, "steady-table"))
	}
	p0, ok := value(scrape, projected)
	c0, _ := value(scrape, cost30d)
	// Flat: the projection is today's 30-day cost a month (× 730 / 720).
	if !ok || abs(p0-c0*730/720) > 1e-6*c0 {
		t.Errorf("steady-table: projected %v, want the 30-day cost a month %v", p0, c0*730/720)
	}
	t.Logf("20:00: projected %v, 30-day cost %v", p0, c0)
	harnesstest.Advance(t, run, start.Add(2*time.Hour)) // 22:00, the same UTC day
	scrape = gatherText(t, run.App)
	p1, _ := value(scrape, projected)
	c1, _ := value(scrape, cost30d)
	t.Logf("22:00: projected %v, 30-day cost %v", p1, c1)
	if c1 == c0 || p1 != p0 {
		t.Errorf("within the day: 30-day cost %v → %v (should move), projection %v → %v (should hold)", c0, c1, p0, p1)
	}
	harnesstest.Advance(t, run, start.Add(5*time.Hour)) // 01:00 the next day
	scrape = gatherText(t, run.App)
	if p2, _ := value(scrape, projected); p2 == p0 {
		t.Errorf("after midnight the projection should be computed afresh: still %v", p2)
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// grepLines returns the lines of s containing sub.
func grepLines(s, sub string) string {
	var out []byte
	for _, l := range regexp.MustCompile("(?m)^.*"+regexp.QuoteMeta(sub)+".*$").FindAllString(s, -1) {
		out = append(out, l+"\n"...)
	}
	return string(out)
}
