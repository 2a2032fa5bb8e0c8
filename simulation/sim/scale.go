package sim

import (
	"fmt"
	"strings"
)

// ScaleScenario returns the YAML of a scenario of n tables with 2 GSIs
// each, named prefix-0000 onwards, holding history: every third
// on-demand, the others provisioned, a third of all with auto-scaling, TTL
// on every tenth (ScaleTableHasTTL). The bench (cmd/bench) and the
// footprint tests build their accounts from it.
func ScaleScenario(prefix string, n int, history string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "name: %s-%d\ndescription: %d tables with 2 GSIs\nhistory: %s\naccount:\n  regions: [us-east-1]\ntables:\n", prefix, n, n, history)
	for i := range n {
		read, write := 40+float64(i%17)*10, 15+float64(i%11)*5
		fmt.Fprintf(&b, "  - name: %s\n", ScaleTableName(prefix, i))
		as := ""
		if i%3 == 1 {
			as = "\n    auto_scaling:\n      read: {min: 10, max: 2000, target: 70}\n      write: {min: 5, max: 1000, target: 70}"
		}
		if i%3 == 2 {
			fmt.Fprintf(&b, "    billing: on_demand\n")
		} else {
			fmt.Fprintf(&b, "    billing: provisioned\n    capacity: {read: %g, write: %g}%s\n", read*2, write*2, as)
		}
		fmt.Fprintf(&b, "    traffic: {read: %g, write: %g, daily: 0.3, weekly: 0.2, noise: 0.05}\n", read, write)
		fmt.Fprintf(&b, "    gsis:\n")
		for _, g := range []string{"by-owner", "by-date"} {
			if i%3 == 2 {
				fmt.Fprintf(&b, "      - {name: %s, share: {read: 0.3, write: 1}}\n", g)
			} else {
				fmt.Fprintf(&b, "      - {name: %s, capacity: {read: %g, write: %g}, share: {read: 0.3, write: 1}}\n", g, read, write*2)
			}
		}
		if ScaleTableHasTTL(i) {
			fmt.Fprintf(&b, "    ttl:\n      attribute: expires_at\n      writes: {per_minute: 0.1, class: seconds, expires_in: 1d, from: -1d}\n")
		}
	}
	return b.String()
}

// ScaleTableName is the name of table i of ScaleScenario(prefix, ...).
func ScaleTableName(prefix string, i int) string { return fmt.Sprintf("%s-%04d", prefix, i) }

// ScaleTableHasTTL reports whether table i of ScaleScenario has TTL.
func ScaleTableHasTTL(i int) bool { return i%10 == 0 }
