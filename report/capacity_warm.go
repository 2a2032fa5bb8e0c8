package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

// warmJ is the warm throughput and sudden-peak figures of a table or GSI.
type warmJ struct {
	Index string `json:"index"`
	// WarmRead, WarmWrite are DescribeTable's WarmThroughput; null when the
	// answer has none (older API answers).
	WarmRead   *float64 `json:"warm_read_units_per_second"`
	WarmWrite  *float64 `json:"warm_write_units_per_second"`
	WarmStatus string   `json:"warm_status"`
	PeakRead   *float64 `json:"peak_30d_read_units_per_second"`
	PeakWrite  *float64 `json:"peak_30d_write_units_per_second"`
	SuddenRead *float64 `json:"sudden_peak_read_units_per_second"`
	SuddenWrt  *float64 `json:"sudden_peak_write_units_per_second"`
	// HeadroomRead, HeadroomWrite are the sudden peak over the 30-day peak.
	HeadroomRead  *float64 `json:"headroom_read"`
	HeadroomWrite *float64 `json:"headroom_write"`
}

// warmDoc renders a report's warm figures (an empty list without them).
func warmDoc(ws []collectors.WarmFigures) []warmJ {
	out := []warmJ{}
	r3 := func(v float64) *float64 { return finite(math.Round(v*1000) / 1000) }
	for _, w := range ws {
		out = append(out, warmJ{Index: w.Index, WarmRead: finite(w.Warm[0]), WarmWrite: finite(w.Warm[1]), WarmStatus: w.WarmStatus,
			PeakRead: r3(w.Peak30d[0]), PeakWrite: r3(w.Peak30d[1]), SuddenRead: finite(w.SuddenPeak[0]), SuddenWrt: finite(w.SuddenPeak[1]),
			HeadroomRead: r3(w.Headroom(0)), HeadroomWrite: r3(w.Headroom(1))})
	}
	return out
}

// warmCell is "sudden (×headroom)".
func warmCell(sudden, headroom *float64) string {
	if sudden == nil {
		return "-"
	}
	if headroom == nil {
		return fmt.Sprintf("%.0f", *sudden)
	}
	return fmt.Sprintf("%.0f (×%.3g)", *sudden, *headroom)
}

// warmUnits is a warm throughput pair, "-" for none.
func warmUnits(w warmJ) string {
	if w.WarmRead == nil && w.WarmWrite == nil {
		return "- (not reported)"
	}
	return fmt.Sprintf("%s / %s %s", optUnits(w.WarmRead), optUnits(w.WarmWrite), w.WarmStatus)
}

func optUnits(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f", *p)
}

// warmText is a table's warm figures in sentences (HTML view).
func warmText(ws []warmJ) string {
	var parts []string
	for _, w := range ws {
		parts = append(parts, fmt.Sprintf("%s: warm throughput (read / write units/s) %s; 30-day peak %s / %s; takes a sudden peak of %s read, %s write units/s",
			indexName(w.Index), warmUnits(w), optRate(w.PeakRead), optRate(w.PeakWrite), warmCell(w.SuddenRead, w.HeadroomRead), warmCell(w.SuddenWrt, w.HeadroomWrite)))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Sudden peaks (×: times the 30-day peak). " + strings.Join(parts, ". ") + "."
}

// warmIntro explains the warm-throughput table.
const warmIntro = "Sudden peak: the largest per-second demand the table or GSI takes at once without throttling " +
	"(provisioned: its provisioned capacity; on demand: the largest of the new-table 12,000 read / 4,000 write units, twice the highest " +
	"per-second demand of the last 30 days and its warm throughput while ACTIVE, capped by its on-demand maximum), and in brackets that " +
	"figure over the 30-day peak. Warm throughput is what DescribeTable reports (\"not reported\" in older API answers). " +
	"A planned event above the sudden peak needs pre-warming (UpdateTable WarmThroughput, charged; docs/runbooks/DynamoDBOnDemandFlashCrowd.md)."

// optRate is a rate in units per second: whole units from 100, three
// significant digits below; "-" for nil.
func optRate(p *float64) string {
	switch {
	case p == nil:
		return "-"
	case *p >= 100:
		return fmt.Sprintf("%.0f", *p)
	}
	return fmt.Sprintf("%.3g", *p)
}
