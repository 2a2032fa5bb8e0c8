package capacity

import (
	"math"
	"strings"
	"testing"
)

func usEast1(t *testing.T) Prices {
	t.Helper()
	p, err := PricesFor("us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRecommendationKnownAnswers(t *testing.T) {
	p := usEast1(t)
	tooSmallMax := AutoScalingSettings{Target: 0.7, Min: 100, Max: 1000, ScaleOutDelay: DefaultScaleOutDelay}
	peakDaily := func(base, peak float64) func(int) float64 {
		return func(i int) float64 {
			if h := (i / 60) % 24; h >= 14 && h < 16 {
				return peak
			}
			return base
		}
	}
	tests := []struct {
		name       string
		tr         Trace
		mode       Mode
		s          Settings
		action     Action
		reason     []string // substrings the reason must contain
		throttled  bool     // whether the provisioned simulation must throttle
		atMax      bool     // whether minutes at max must be reported
		monthlyOD  float64  // expected monthly on-demand cost, 0 = unchecked
		monthlyPrv float64  // expected monthly provisioned cost, 0 = unchecked
	}{
		{
			name: "flat sustained: provisioned wins", tr: trace(week, flat(2000), flat(500)), mode: OnDemand,
			action: SwitchToProvisioned, reason: []string{"provisioned would save $867.76/month"},
			// 2000×3600×730×0.125e-6 + 500×3600×730×0.625e-6; ⌈2000/0.7⌉×730×0.00013 + ⌈500/0.7⌉×730×0.00065
			monthlyOD: 657 + 821.25, monthlyPrv: 2858*730*0.00013 + 715*730*0.00065,
		},
		{
			name: "flat sustained, already provisioned: keep", tr: trace(week, flat(2000), flat(500)), mode: Provisioned,
			action: Keep, reason: []string{"provisioned is cheaper"},
		},
		{
			name: "idle 23 h + 1 h burst at fixed peak capacity: on-demand wins", tr: trace(week, idleBurst(1000), idleBurst(3000)), mode: Provisioned,
			s:      Settings{Read: Provisioning{Fixed: 1000}, Write: Provisioning{Fixed: 3000}},
			action: SwitchToOnDemand, reason: []string{"on-demand would save"},
			monthlyOD: (1000*3600*0.125e-6 + 3000*3600*0.625e-6) * 730 / 24, monthlyPrv: (1000*0.00013 + 3000*0.00065) * 730,
		},
		{
			name: "idle 23 h + 1 h burst on demand: keep, auto-scaling would throttle", tr: trace(week, idleBurst(1000), idleBurst(3000)), mode: OnDemand,
			action: Keep, reason: []string{"throttles"}, throttled: true,
		},
		{
			name: "flash sale ×50 within a minute: keep on-demand", tr: trace(week, flashSale(500, 50), flashSale(200, 50)), mode: OnDemand,
			action: Keep, reason: []string{"throttles", "above the 0.10% tolerated"}, throttled: true,
		},
		{
			name: "auto-scaling max below peak", tr: trace(week, flat(100), peakDaily(300, 2000)), mode: Provisioned,
			s:      Settings{Write: Provisioning{AutoScaling: &tooSmallMax}},
			action: Keep, reason: []string{"throttles", "auto-scaling maximum", "raise the auto-scaling maximum"}, throttled: true, atMax: true,
		},
		{
			name: "tiny table under the minimum spend", tr: trace(week, flat(5), flat(2)), mode: OnDemand,
			action: Keep, reason: []string{"below the $50.00/month minimum"},
		},
		{
			name: "saving above minimum but traffic under 100 units/s", tr: trace(week, flat(0), flat(90)), mode: OnDemand,
			action: Keep, reason: []string{"traffic averages 90.0 request units/s"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Evaluate(tc.tr, tc.mode, tc.s, p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := e.Recommendation
			t.Logf("%s → %s: %s", tc.mode, r.Action, r.Reason)
			if r.Action != tc.action {
				t.Errorf("action %s, want %s", r.Action, tc.action)
			}
			for _, s := range tc.reason {
				if !strings.Contains(r.Reason, s) {
					t.Errorf("reason %q lacks %q", r.Reason, s)
				}
			}
			if got := e.Throttled.Total() > 0; got != tc.throttled {
				t.Errorf("throttled units %.0f, want throttling %v", e.Throttled.Total(), tc.throttled)
			}
			if got := e.MinutesAtMax > 0; got != tc.atMax {
				t.Errorf("minutes at max %d, want some: %v", e.MinutesAtMax, tc.atMax)
			}
			if tc.monthlyOD != 0 && !within(e.MonthlyOnDemand, tc.monthlyOD, 1e-9) {
				t.Errorf("monthly on-demand %.4f, want %.4f", e.MonthlyOnDemand, tc.monthlyOD)
			}
			if tc.monthlyPrv != 0 && !within(e.MonthlyProvisioned, tc.monthlyPrv, 1e-9) {
				t.Errorf("monthly provisioned %.4f, want %.4f", e.MonthlyProvisioned, tc.monthlyPrv)
			}
			if want := r.Mode; (r.Action == Keep) != (want == tc.mode) {
				t.Errorf("recommended mode %s inconsistent with action %s", want, r.Action)
			}
		})
	}
}

// TestEvaluationFigures checks the current/other bookkeeping of Evaluation.
func TestEvaluationFigures(t *testing.T) {
	p := usEast1(t)
	tr := trace(1440, sine(1000, 500), sine(100, 50))
	od, err := Evaluate(tr, OnDemand, Settings{}, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Evaluate(tr, Provisioned, Settings{}, p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if od.CurrentCost != od.OnDemand.Total() || od.OtherCost != od.Provisioned.Total() {
		t.Errorf("on-demand current: current %v other %v", od.CurrentCost, od.OtherCost)
	}
	if pr.CurrentCost != od.OtherCost || pr.MonthlySaving != -od.MonthlySaving {
		t.Errorf("provisioned current: current %v saving %v, mirror of %v %v", pr.CurrentCost, pr.MonthlySaving, od.OtherCost, od.MonthlySaving)
	}
	if !within(od.MonthlyOnDemand, od.OnDemand.Total()*730/24, 1e-12) {
		t.Errorf("monthly on-demand %v, want %v", od.MonthlyOnDemand, od.OnDemand.Total()*730/24)
	}
	if od.Workloads[0].ReadMethod != MethodDefaultAutoScaling || math.Abs(od.MeanRate-1100) > 1 {
		t.Errorf("method %s, mean rate %v", od.Workloads[0].ReadMethod, od.MeanRate)
	}
}

// TestEvaluateTableWithGSI checks that a table and its GSI add up and that
// each is simulated with its own settings.
func TestEvaluateTableWithGSI(t *testing.T) {
	p := usEast1(t)
	base := Workload{Trace: trace(week, flat(2000), flat(500))}
	gsi := Workload{Trace: trace(week, flat(0), flat(500)), Settings: Settings{Write: Provisioning{Fixed: 800}}}
	e, err := EvaluateTable(OnDemand, p, Options{}, base, gsi)
	if err != nil {
		t.Fatal(err)
	}
	one, _ := Evaluate(base.Trace, OnDemand, base.Settings, p, Options{})
	two, _ := Evaluate(gsi.Trace, OnDemand, gsi.Settings, p, Options{})
	if !within(e.MonthlyProvisioned, one.MonthlyProvisioned+two.MonthlyProvisioned, 1e-12) ||
		!within(e.MonthlyOnDemand, one.MonthlyOnDemand+two.MonthlyOnDemand, 1e-12) {
		t.Errorf("table+GSI monthly %v/%v, parts %v+%v / %v+%v", e.MonthlyProvisioned, e.MonthlyOnDemand,
			one.MonthlyProvisioned, two.MonthlyProvisioned, one.MonthlyOnDemand, two.MonthlyOnDemand)
	}
	if e.Workloads[1].WriteMethod != MethodFixed || !within(two.MonthlyProvisioned, 800*730*0.00065+5*730*0.00013, 1e-9) {
		t.Errorf("GSI method %s, monthly provisioned %v", e.Workloads[1].WriteMethod, two.MonthlyProvisioned)
	}
	bad := gsi
	bad.Settings.Write.Fixed = -1
	if _, err := EvaluateTable(OnDemand, p, Options{}, base, bad); err == nil || !strings.Contains(err.Error(), "workload 1: capacity: Settings.Write.Fixed") {
		t.Errorf("error %v, want one naming workload 1 and Settings.Write.Fixed", err)
	}
}

// TestOptionsThresholds checks defaults, overrides and negative-means-zero.
func TestOptionsThresholds(t *testing.T) {
	p := usEast1(t)
	tiny := trace(week, flat(5), flat(2)) // saves ~$0.5/month in provisioned
	tests := []struct {
		name string
		o    Options
		want Action
	}{
		{"defaults keep", Options{}, Keep},
		{"no minimum saving, rate check still applies", Options{MinMonthlySaving: -1}, Keep},
		{"no minimum saving, no rate check", Options{MinMonthlySaving: -1, MinRequestRate: -1}, SwitchToProvisioned},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Evaluate(tiny, OnDemand, Settings{}, p, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if e.Recommendation.Action != tc.want {
				t.Errorf("%s (%s), want %s", e.Recommendation.Action, e.Recommendation.Reason, tc.want)
			}
		})
	}
	// Tolerating all throttling turns the flash-sale verdict around.
	flash := trace(week, flashSale(500, 50), flashSale(200, 50))
	e, err := Evaluate(flash, OnDemand, Settings{}, p, Options{MaxThrottledRatio: 1})
	if err != nil {
		t.Fatal(err)
	}
	if e.Recommendation.Action != SwitchToProvisioned || !strings.Contains(e.Recommendation.Reason, "throttles") {
		t.Errorf("flash sale with throttling tolerated: %s (%s)", e.Recommendation.Action, e.Recommendation.Reason)
	}
}
