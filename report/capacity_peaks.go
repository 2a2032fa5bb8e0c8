package report

import (
	"fmt"
	"strings"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
)

// peakJ is how the peaks of one dimension of a table or GSI are best
// served (collectors.PeakFigures; docs/capacity.md, "Serving a peak, four
// ways").
type peakJ struct {
	Index     string `json:"index"`
	Dimension string `json:"dimension"`
	// Kind is recurring, ramping, flash, steady or unknown.
	Kind           string `json:"peak_kind"`
	Recommendation string `json:"recommendation"`
	ReasonCode     string `json:"reason_code"`
	Reason         string `json:"reason"`
	// Schedule is the proposal of a recurring peak; null otherwise.
	Schedule *scheduleJ `json:"schedule"`
}

// scheduleJ is a proposed pair of scheduled actions and its what-if.
type scheduleJ struct {
	RaiseSchedule    string  `json:"raise_schedule"`
	RaiseMinCapacity float64 `json:"raise_min_capacity"`
	LowerSchedule    string  `json:"lower_schedule"`
	LowerMinCapacity float64 `json:"lower_min_capacity"`
	LeadMinutes      int     `json:"lead_minutes"`
	// Commands are the AWS CLI put-scheduled-action commands, raise then
	// lower.
	Commands []string `json:"commands"`
	// WhatIfSeconds is the span of minutes the what-if simulated.
	WhatIfSeconds float64 `json:"what_if_seconds"`
	Without       whatIfJ `json:"without"`
	With          whatIfJ `json:"with"`
}

// whatIfJ is one run of the what-if.
type whatIfJ struct {
	ThrottledUnits   float64  `json:"throttled_units"`
	SaturatedMinutes float64  `json:"saturated_minutes"`
	MonthlyUSD       *float64 `json:"monthly_usd"`
}

// peakDoc renders a table's peak figures (an empty list without them).
func peakDoc(table string, ps []collectors.PeakFigures) []peakJ {
	out := []peakJ{}
	for _, p := range ps {
		for k, pk := range p.Peaks {
			a := pk.Advice()
			j := peakJ{Index: p.Index, Dimension: []string{"read", "write"}[k], Kind: string(pk.Kind),
				Recommendation: string(a.Action), ReasonCode: string(a.Code), Reason: a.Reason}
			if pr := pk.Proposal; pr != nil {
				d := capacity.Read
				if k == 1 {
					d = capacity.Write
				}
				j.Schedule = &scheduleJ{RaiseSchedule: pr.Raise.Schedule, RaiseMinCapacity: pr.Raise.Min, LowerSchedule: pr.Lower.Schedule,
					LowerMinCapacity: pr.Lower.Min, LeadMinutes: pr.LeadMinutes, WhatIfSeconds: pr.Covered.Seconds(),
					Commands: []string{capacity.PutScheduledActionCommand(table, p.Index, d, pr.Raise), capacity.PutScheduledActionCommand(table, p.Index, d, pr.Lower)},
					Without:  whatIfJ{ThrottledUnits: pr.Without.ThrottledUnits, SaturatedMinutes: pr.Without.SaturatedMinutes, MonthlyUSD: finite(pr.Without.MonthlyCost)},
					With:     whatIfJ{ThrottledUnits: pr.With.ThrottledUnits, SaturatedMinutes: pr.With.SaturatedMinutes, MonthlyUSD: finite(pr.With.MonthlyCost)}}
			}
			out = append(out, j)
		}
	}
	return out
}

// peakIntro explains the peaks table.
const peakIntro = "How each table's and GSI's peaks are best served, from its minutes of the last 7 whole UTC days: recurring (the same hour on at least 5 days: " +
	"add scheduled scaling, with the what-if of the policy without and with the proposed actions), ramping (target tracking keeps up), flash " +
	"(pre-warm before events) or steady; unknown under 7 days. docs/capacity.md, \"Serving a peak, four ways\"."

// peakMarkdown writes the peaks section and the commands of the proposals.
func peakMarkdown(b *strings.Builder, doc capacityReportDoc) {
	b.WriteString("\n## Serving the peaks\n\n" + peakIntro + "\n\n")
	b.WriteString("| Table | Index | Dimension | Peaks | Recommendation (reason) | Why |\n|---|---|---|---|---|---|\n")
	var cmds []string
	for _, t := range doc.Tables {
		for _, p := range t.Peaks {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s (%s) | %s |\n", mdCell(t.Table), mdCell(indexName(p.Index)), p.Dimension, p.Kind, p.Recommendation, p.ReasonCode, mdCell(p.Reason))
			if s := p.Schedule; s != nil && p.Recommendation == string(capacity.PeakActionAddScheduledScaling) {
				cmds = append(cmds, s.Commands...)
			}
		}
	}
	if len(cmds) > 0 {
		b.WriteString("\nThe proposed scheduled actions (AWS CLI):\n\n```sh\n" + strings.Join(cmds, "\n") + "\n```\n")
	}
}

// peakText is a table's peak advice in sentences (HTML view): the
// dimensions with something to do, and their commands.
func peakText(ps []peakJ) string {
	var parts []string
	for _, p := range ps {
		if p.Recommendation == string(capacity.PeakActionNone) {
			continue
		}
		s := fmt.Sprintf("%s %s: %s (%s): %s", indexName(p.Index), p.Dimension, p.Recommendation, p.ReasonCode, p.Reason)
		if p.Schedule != nil && p.Recommendation == string(capacity.PeakActionAddScheduledScaling) {
			s += ". " + strings.Join(p.Schedule.Commands, " ; ")
		}
		parts = append(parts, s)
	}
	if len(parts) == 0 {
		return ""
	}
	return "Peaks. " + strings.Join(parts, ". ") + "."
}
