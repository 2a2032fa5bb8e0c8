package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

// Capacity writes the capacity report in format: table (aligned text),
// json, markdown or html.
func Capacity(w io.Writer, format string, reports []collectors.TableReport, now time.Time) error {
	switch format {
	case "json":
		return CapacityJSON(w, reports, now)
	case "markdown":
		return CapacityMarkdown(w, reports, now)
	case "html":
		return CapacityHTML(w, reports, now)
	case "table", "":
		CapacityText(w, reports)
		return nil
	}
	return fmt.Errorf("report format %q: use table, json, markdown or html", format)
}

// CapacityText writes the capacity report as aligned text: the traffic
// figures, then the cost what-if, then a note per table.
func CapacityText(out io.Writer, reports []collectors.TableReport) {
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "Traffic (ratios over 1 day and the rolling 7 days; peak = collectors.capacity.peak_percentile (default 99th) of 1-minute rates / mean over 7 days; baselines = median hourly read+write units/s)")
	fmt.Fprintln(w, "ACCOUNT\tREGION\tTABLE\tINDEX\tR/W 1D\tR/W 7D\tDRIFT\tPEAK/AVG READ\tPEAK/AVG WRITE\tBASELINE 1W\tBASELINE 4W\tSURGE RETENTION\tSINCE SURGE PEAK")
	for _, r := range reports {
		for _, f := range r.Traffic {
			retention, since := "-", "-"
			if f.Surge != nil {
				retention, since = num(f.Surge.Retention), days(f.Surge.SincePeak)
			}
			index := f.Index
			if index == "" {
				index = "(table)"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Account, r.Region, r.Table, index,
				num(f.Ratio1d), num(f.Ratio7d), pct(f.Drift), num(f.PeakToAverage[0]), num(f.PeakToAverage[1]),
				num(f.Baseline1w), num(f.Baseline4w), retention, since)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Cost what-if (USD over the window of actual consumption, both windows read off one auto-scaling simulation; consumed capacity hides demand real throttling refused; throughput only: storage is in the table-class section)")
	fmt.Fprintln(w, "ACCOUNT\tREGION\tTABLE\tMODE\tWINDOW\tON-DEMAND\tPROVISIONED\tSAVING/MONTH\tTHROTTLED UNITS\tRECOMMENDATION\tREASON")
	var notes []string
	for _, r := range reports {
		if r.Err != nil {
			notes = append(notes, fmt.Sprintf("%s/%s %s: %v", r.Account, r.Region, r.Table, r.Err))
		}
		if len(r.Costs) == 0 && r.Err == nil {
			notes = append(notes, fmt.Sprintf("%s/%s %s: less than an hour of history", r.Account, r.Region, r.Table))
		}
		for _, c := range r.Costs {
			if c.Unpriced {
				continue // the diagnosis only (the note above says why)
			}
			e := c.Evaluation
			window := c.Window
			if c.Covered < 24*time.Hour*time.Duration(windowDays(c.Window)) {
				window += " (" + days(c.Covered) + ")"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.0f\t%s\t%s\n", r.Account, r.Region, r.Table, r.Mode, window,
				e.OnDemand.Total(), e.Provisioned.Total(), e.MonthlySaving, e.Throttled.Total(), e.Recommendation.Action, e.Recommendation.Code)
			notes = append(notes, fmt.Sprintf("%s %s: %s", r.Table, c.Window, e.Recommendation.Reason))
		}
	}
	engineeringTable(w, reports)
	globalText(w, reports)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Table class and storage (USD a month: the longest window's throughput in the current billing mode and today's storage, in each class; list storage prices, free tier not deducted)")
	fmt.Fprintln(w, "ACCOUNT\tREGION\tTABLE\tCLASS\tSTORAGE\tSTANDARD\tSTANDARD-IA\tSTORAGE SHARE\tBREAK-EVEN\tSAVING/MONTH\tRECOMMENDATION\tREASON")
	for _, r := range reports {
		f := r.Class
		if f == nil {
			continue
		}
		storage := "-"
		if len(f.Storage) > 0 {
			var sum float64
			for _, x := range f.Storage {
				sum += x.Monthly
			}
			storage = fmt.Sprintf("%.2f", sum)
		}
		if f.Missing != "" || f.Window == "" {
			reason := string(f.Missing)
			if reason == "" {
				reason = "no cost window yet"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t-\t-\t-\t-\t-\t%s\t%s\n", r.Account, r.Region, r.Table, f.Class, storage, collectors.ClassRecommendationNone, reason)
			continue
		}
		a := f.Advice
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%.2f\t%.2f\t%s\t%s\t%.2f\t%s\t%s\n", r.Account, r.Region, r.Table, f.Class, storage,
			f.Standard.Total(), f.StandardIA.Total(), share(a.StorageShare), share(a.BreakEven), a.Saving, a.Action, a.Code)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "A year or two ahead (USD a month, on-demand / provisioned; "+projectionIntro+")")
	fmt.Fprintln(w, "ACCOUNT\tREGION\tTABLE\tTREND\tWINDOW\tTODAY\t12 MONTHS\t24 MONTHS\tCHEAPER MODE")
	for _, r := range reports {
		p := projectionDoc(r.Projection)
		if p == nil {
			continue
		}
		window := p.Window
		if window == "" {
			window = "-"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Account, r.Region, r.Table, growthText(p), window,
			monthCell(p, 0), monthCell(p, 1), monthCell(p, 2), crossoverText(p))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Warm throughput and sudden peaks (units per second; "+warmIntro+")")
	fmt.Fprintln(w, "ACCOUNT\tREGION\tTABLE\tINDEX\tWARM READ / WRITE (STATUS)\tPEAK 30D READ\tPEAK 30D WRITE\tSUDDEN PEAK READ\tSUDDEN PEAK WRITE")
	for _, r := range reports {
		for _, x := range warmDoc(r.Warm) {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Account, r.Region, r.Table, indexName(x.Index), warmUnits(x),
				optRate(x.PeakRead), optRate(x.PeakWrite), warmCell(x.SuddenRead, x.HeadroomRead), warmCell(x.SuddenWrt, x.HeadroomWrite))
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Serving the peaks ("+peakIntro+")")
	fmt.Fprintln(w, "ACCOUNT\tREGION\tTABLE\tINDEX\tDIMENSION\tPEAKS\tRECOMMENDATION (REASON)\tPROPOSED SCHEDULE")
	for _, r := range reports {
		for _, p := range peakDoc(r.Table, r.Peaks) {
			sched := "-"
			if s := p.Schedule; s != nil {
				sched = fmt.Sprintf("%s MinCapacity=%g, %s MinCapacity=%g", s.RaiseSchedule, s.RaiseMinCapacity, s.LowerSchedule, s.LowerMinCapacity)
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s (%s)\t%s\n", r.Account, r.Region, r.Table, indexName(p.Index), p.Dimension, p.Kind, p.Recommendation, p.ReasonCode, sched)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Diagnosis (provisioned tables, per table or GSI and dimension their own auto-scaling policy scales: request units the simulation of the current policy "+
		"throttles and saturated minutes (consumed demand at or above the simulated capacity: where a history capped by real throttling shows it) by cause, "+
		"with the latest throttled or saturated minute; at max = capacity held at the auto-scaling maximum, target = units a 70% target would not throttle, "+
		"minutes it would not saturate, reaction = demand rising faster than auto-scaling reacts; scalings per day and utilization over 7 days)")
	fmt.Fprintln(w, "ACCOUNT\tREGION\tTABLE\tINDEX\tWINDOW\tDIMENSION\tAT MAX\tTARGET\tREACTION\tSCALINGS/DAY\tUTILIZATION")
	for _, r := range reports {
		for _, d := range diagnosisRows(r) {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.Account, r.Region, r.Table, indexName(d.Index), d.Window, d.Dimension,
				causeText(d, capacity.CauseAtMax), targetText(d), causeText(d, capacity.CauseReaction), optNum(d.ScalingPerDay), optNum(d.Utilization))
		}
	}
	_ = w.Flush()
	if len(notes) > 0 {
		fmt.Fprintln(out)
		for _, n := range notes {
			fmt.Fprintln(out, n)
		}
	}
}

func windowDays(label string) int {
	var n int
	_, _ = fmt.Sscanf(label, "%dd", &n)
	return n
}

func num(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.3g", v)
}

// share is a share as an unsigned percentage, "-" for NaN.
func share(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%+.0f%%", 100*v)
}

func days(d time.Duration) string {
	return fmt.Sprintf("%.1fd", d.Hours()/24)
}

// engineeringTable writes, when collectors.capacity.engineering is set, each
// window's monthly cost in each mode with the team's time added.
func engineeringTable(w io.Writer, reports []collectors.TableReport) {
	header := false
	for _, r := range reports {
		for _, c := range r.Costs {
			x := engineeringDoc(r.Engineering, c.Evaluation)
			if x == nil || c.Unpriced {
				continue
			}
			if !header {
				fmt.Fprintln(w)
				fmt.Fprintf(w, "Total cost with the team's time (USD a month: the bill plus %g h on demand, %g h provisioned per table, at %.2f an hour)\n", x.HoursOnDemand, x.HoursProvisioned, x.HourlyRateUSD)
				fmt.Fprintln(w, "ACCOUNT\tREGION\tTABLE\tWINDOW\tON-DEMAND+TEAM\tPROVISIONED+TEAM\tCHEAPER IN TOTAL\tUNLIKE THE BILL")
				header = true
			}
			cheaper, reverses := "equal", "-"
			if x.CheaperMode != "" {
				cheaper = modeName(x.CheaperMode)
			}
			if x.Reverses {
				reverses = "yes"
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%.2f\t%.2f\t%s\t%s\n", r.Account, r.Region, r.Table, c.Window, x.MonthlyOnDemandUSD, x.MonthlyProvisionedUSD, cheaper, reverses)
		}
	}
}

// globalText writes the section of the global tables, when there are any:
// one decision per global table, on the costs summed over its replicas
// (switching one replica's mode switches all), or why there is none here.
func globalText(w io.Writer, reports []collectors.TableReport) {
	seen := map[*collectors.GlobalDecision]bool{}
	var gs []*collectors.GlobalDecision
	for _, r := range reports {
		if g := r.Global; g != nil && !seen[g] {
			seen[g] = true
			gs = append(gs, g)
		}
	}
	if len(gs) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Global tables (one decision for every replica, on the costs summed over them: switching one replica's mode switches all; each replica's own figures are above)")
	fmt.Fprintln(w, "ACCOUNT\tGLOBAL TABLE\tREGIONS\tWINDOW\tON-DEMAND/MONTH\tPROVISIONED/MONTH\tSAVING/MONTH\tRECOMMENDATION (EVERY REPLICA)\tREASON")
	for _, g := range gs {
		regions := strings.Join(g.Regions, ",")
		switch {
		case g.Err != nil:
			fmt.Fprintf(w, "%s\t%s\t%s\t-\t-\t-\t-\t%s\t%v\n", g.Account, g.Table, regions, GlobalUndecided, g.Err)
		case len(g.Missing) > 0:
			fmt.Fprintf(w, "%s\t%s\t%s\t-\t-\t-\t-\t%s\tno figures here for the replica in %s (not read by this exporter, or another shard's)\n",
				g.Account, g.Table, regions, GlobalUndecided, strings.Join(g.Missing, ","))
		}
		for _, c := range g.Costs {
			e := c.Evaluation
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%s\t%s\n", g.Account, g.Table, regions, c.Window,
				e.MonthlyOnDemand, e.MonthlyProvisioned, e.MonthlySaving, e.Recommendation.Action, e.Recommendation.Reason)
		}
	}
}
