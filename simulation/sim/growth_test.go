package sim

import (
	"math"
	"strings"
	"testing"
)

// TestTrafficGrowthCompound: traffic.growth multiplies the traffic by
// (1+growth) every 730 hours from the scenario start, compound: by hand,
// growth 0.08 gives 1.08 one month after the start, 1.08² = 1.1664 two
// months after and 1/1.08 = 0.925926 a month before.
func TestTrafficGrowthCompound(t *testing.T) {
	const start = int64(29_000_000) // a Unix minute at 00:00 UTC
	g := newTrafficGen(&TrafficSpec{Read: 10, Write: 4, Growth: 0.08}, 0, 1, start, start+7*1440)
	for _, c := range []struct {
		minutes int64
		want    float64
	}{{0, 1}, {730 * 60, 1.08}, {2 * 730 * 60, 1.1664}, {-730 * 60, 1 / 1.08}} {
		d := g.at(start + c.minutes)
		if math.Abs(d.read/10-c.want) > 1e-9 || math.Abs(d.write/4-c.want) > 1e-9 {
			t.Errorf("%d minutes from the start: read ×%v write ×%v, want ×%v", c.minutes, d.read/10, d.write/4, c.want)
		}
	}
	if _, err := LoadScenario([]byte("name: x\ntables:\n  - name: tbl\n    traffic: {read: 1, growth: 0.5}\n")); err != nil {
		t.Errorf("growth 0.5: %v", err)
	}
	if _, err := LoadScenario([]byte("name: x\ntables:\n  - name: tbl\n    traffic: {read: 1, growth: 3}\n")); err == nil || !strings.Contains(err.Error(), "traffic.growth") {
		t.Errorf("growth 3 (300%% a month) should be refused by name: %v", err)
	}
}
