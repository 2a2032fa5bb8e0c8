package sim

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	aas "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	aastypes "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"
)

// Known answers of scheduled scaling, from the Application Auto Scaling
// user guide ("How scheduled scaling for Application Auto Scaling works"):
// at the scheduled time the scalable target's minimum becomes the action's
// and a capacity below it scales out to it at once; target tracking then
// cannot go below it; the evening action lowering the minimum lets target
// tracking scale in again (15 minutes below target − 20 points: its low
// alarm has been in ALARM since 19:30, so the first evaluation after the
// minimum falls scales in).
func TestScheduledActionRaisesAndRestoresMin(t *testing.T) {
	r := rigYAML(t, `
name: scheduled-known-answer
history: 2d
tables:
  - name: evening
    capacity: {read: 10, write: 100}
    auto_scaling:
      write:
        min: 50
        max: 1000
        scheduled:
          - {name: evening-up, schedule: 'cron(15 19 * * ? *)', min: 300}
          - {name: evening-down, schedule: 'cron(45 20 * * ? *)', min: 50}
    traffic: {read: 1, write: 50}
`)
	day := t0.Add(-24 * time.Hour).Truncate(24 * time.Hour) // 2025-03-11
	at := func(h, m int) time.Time { return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
	mins, err := r.eng.Truth("", "evening", "", at(19, 0), at(22, 0))
	if err != nil {
		t.Fatal(err)
	}
	capAt := func(h, m int) float64 {
		for _, x := range mins {
			if x.Time.Equal(at(h, m)) {
				return x.WriteCapacity
			}
		}
		t.Fatalf("no minute %02d:%02d", h, m)
		return 0
	}
	for _, c := range []struct {
		h, m int
		want float64
	}{
		{19, 14, 72},  // the previous evening's scale-in: 50 ÷ 0.7 = 71.4, rounded up
		{19, 15, 300}, // the action raises Min to 300: capacity 300 at once
		{20, 0, 300},  // 50 of 300 is far below target, but Min holds
		{20, 45, 300}, // Min is 50 again from 20:45: decided at the minute's end
		{20, 46, 72},  // scale-in to 50 ÷ 0.7, serving the next minute
		{21, 30, 72},
	} {
		if got := capAt(c.h, c.m); got != c.want {
			t.Errorf("write capacity at %02d:%02d = %v, want %v", c.h, c.m, got, c.want)
		}
	}
	var runs []ScheduledRun
	for _, x := range r.eng.ScheduledRuns("evening") {
		if !x.At.Before(at(0, 0)) && x.At.Before(at(24, 0)) {
			runs = append(runs, x)
		}
	}
	if len(runs) != 2 || runs[0].Action != "evening-up" || !runs[0].At.Equal(at(19, 15)) || runs[0].Min != 300 || runs[0].Max != 1000 ||
		runs[1].Action != "evening-down" || !runs[1].At.Equal(at(20, 45)) || runs[1].Min != 50 || runs[1].Refused != "" {
		t.Fatalf("runs of the day: %+v", runs)
	}
	var up *ScalingEvent
	for _, ev := range r.eng.ScalingEvents("evening") {
		if ev.Effective.Equal(at(19, 15)) {
			up = &ev
		}
	}
	if up == nil || up.From != 72 || up.To != 300 || !up.Decided.Equal(at(19, 15)) {
		t.Fatalf("scaling event at 19:15: %+v", up)
	}
}

// DescribeScheduledActions answers the scenario's actions through the real
// SDK, and a run's bounds show in DescribeScalableTargets.
func TestScheduledActionsThroughTheSDK(t *testing.T) {
	r := rigYAML(t, `
name: scheduled-sdk
history: 1d
tables:
  - name: evening
    capacity: {read: 10, write: 100}
    auto_scaling:
      write:
        min: 50
        max: 1000
        scheduled:
          - {name: evening-up, schedule: 'cron(15 19 * * ? *)', min: 300}
          - {name: evening-down, schedule: 'cron(45 20 * * ? *)', min: 50, max: 800, timezone: UTC}
    traffic: {read: 1, write: 50}
`)
	r.advance(t, 7*time.Hour+30*time.Minute) // t0 12:00 → 19:30
	c := aas.NewFromConfig(aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKID", "SECRET", ""),
		Retryer: func() aws.Retryer { return aws.NopRetryer{} }}, func(o *aas.Options) { o.BaseEndpoint = aws.String(r.url) })
	ctx := context.Background()
	out, err := c.DescribeScheduledActions(ctx, &aas.DescribeScheduledActionsInput{ServiceNamespace: aastypes.ServiceNamespaceDynamodb, ResourceId: aws.String("table/evening")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.ScheduledActions) != 2 {
		t.Fatalf("actions: %+v", out.ScheduledActions)
	}
	down, up := out.ScheduledActions[0], out.ScheduledActions[1]
	if aws.ToString(up.Schedule) != "cron(15 19 * * ? *)" || aws.ToInt32(up.ScalableTargetAction.MinCapacity) != 300 || up.ScalableTargetAction.MaxCapacity != nil ||
		aws.ToString(down.Timezone) != "UTC" || aws.ToInt32(down.ScalableTargetAction.MaxCapacity) != 800 ||
		up.ScalableDimension != aastypes.ScalableDimensionDynamoDBTableWriteCapacityUnits {
		t.Fatalf("actions: up %+v, down %+v", up, down)
	}
	st, err := c.DescribeScalableTargets(ctx, &aas.DescribeScalableTargetsInput{ServiceNamespace: aastypes.ServiceNamespaceDynamodb, ResourceIds: []string{"table/evening"}})
	if err != nil || len(st.ScalableTargets) != 1 {
		t.Fatalf("targets: %v %+v", err, st)
	}
	if g := st.ScalableTargets[0]; aws.ToInt32(g.MinCapacity) != 300 || aws.ToInt32(g.MaxCapacity) != 800 {
		t.Fatalf("after 19:15 the target's bounds are %d-%d, want 300-800 (the evening-down action of yesterday set max 800)", aws.ToInt32(g.MinCapacity), aws.ToInt32(g.MaxCapacity))
	}
}

// The recurring-evening-peak scenario: every evening from 19:30 UTC the
// writes of both tables rise 6x; the table without a scheduled action
// throttles every evening, the one whose action raises Min to 600 at
// 19:15 does not, and its actions ran at 19:15 and 20:45 each day.
func TestRecurringEveningPeak(t *testing.T) {
	r := newRig(t, builtin(t, "recurring-evening-peak"))
	for d := 1; d <= 7; d++ {
		day := t0.Truncate(24*time.Hour).AddDate(0, 0, -d)
		from, to := day.Add(19*time.Hour), day.Add(21*time.Hour)
		// Throttle events (the consumed units are published in half
		// units, so the demand minus them is never exactly 0).
		throttled := func(table string) (events float64, peakDemand float64) {
			mins, err := r.eng.Truth("", table, "", from, to)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range mins {
				for _, e := range m.WriteEvents {
					events += e
				}
				peakDemand = max(peakDemand, m.WriteDemand)
			}
			return events, peakDemand
		}
		u, peak := throttled("orders-evening-peak")
		t.Logf("%s 19:00-21:00: orders-evening-peak %v write throttle events, peak demand %.0f units/s", day.Format("01-02"), u, peak)
		if u <= 0 || peak < 300 {
			t.Errorf("%s: orders-evening-peak had %v write throttle events with a peak demand of %v; want throttles under a 6x peak", day.Format("01-02"), u, peak)
		}
		if u, _ := throttled("orders-evening-scheduled"); u != 0 {
			t.Errorf("%s: orders-evening-scheduled had %v write throttle events; its scheduled action covers the peak", day.Format("01-02"), u)
		}
	}
	var ups, downs int
	for _, run := range r.eng.ScheduledRuns("orders-evening-scheduled") {
		switch {
		case run.Action == "evening-peak-up" && run.At.Hour() == 19 && run.At.Minute() == 15 && run.Min == 600:
			ups++
		case run.Action == "evening-peak-down" && run.At.Hour() == 20 && run.At.Minute() == 45 && run.Min == 50:
			downs++
		default:
			t.Errorf("unexpected run %+v", run)
		}
	}
	if ups != 90 || downs != 90 {
		t.Errorf("%d raising and %d lowering runs in the 90-day history, want 90 each", ups, downs)
	}
	if len(r.eng.ScheduledRuns("orders-evening-peak")) != 0 {
		t.Error("orders-evening-peak has no scheduled action but runs were recorded")
	}
}

// at_utc moves a daily event to a UTC time of day whatever the start: the
// rig starts at 12:00 UTC, the event at -2d lands at 19:30 UTC.
func TestEventAtUTC(t *testing.T) {
	r := rigYAML(t, `
name: at-utc
history: 3d
tables:
  - name: evening
    capacity: {read: 10, write: 1000}
    traffic:
      read: 1
      write: 10
      events:
        - {type: spike, at: -2d, at_utc: "19:30", every: 1d, duration: 1h, factor: 6, ramp: 1m, direction: write}
`)
	day := t0.Truncate(24*time.Hour).AddDate(0, 0, -2)
	mins, err := r.eng.Truth("", "evening", "", day.Add(19*time.Hour+29*time.Minute), day.Add(20*time.Hour+31*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	first, last := mins[0], mins[len(mins)-1]
	if first.WriteDemand != 10 || mins[1].WriteDemand != 60 || mins[len(mins)-2].WriteDemand != 60 || last.WriteDemand != 10 {
		t.Fatalf("demand at 19:29 %v, 19:30 %v, 20:29 %v, 20:30 %v; want 10, 60, 60, 10", first.WriteDemand, mins[1].WriteDemand, mins[len(mins)-2].WriteDemand, last.WriteDemand)
	}
}
