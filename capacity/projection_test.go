package capacity

import (
	"math"
	"math/rand/v2"
	"testing"
)

// growing returns days daily totals growing by perMonth (0.03: 3%) a month
// of DaysPerMonth days, compound, times a seeded ±noise (uniform).
func growing(days int, level, perMonth, noise float64, seed uint64) []float64 {
	r := rand.New(rand.NewPCG(seed, 22))
	out := make([]float64, days)
	for d := range out {
		out[d] = level * math.Pow(1+perMonth, float64(d)/DaysPerMonth) * (1 + noise*(2*r.Float64()-1))
	}
	return out
}

func TestTrendFlatNoisyClaimsNoGrowth(t *testing.T) {
	// 12 weeks of daily totals around 1,000,000 units, ±20% noise, no
	// trend: no growth is claimed and the projection applies none.
	tr := FitTrend(growing(84, 1e6, 0, 0.2, 1))
	if tr.Status != TrendFlat || tr.Factor(12) != 1 || tr.Factor(24) != 1 {
		t.Fatalf("flat noisy history: %+v, factor(12) %v", tr, tr.Factor(12))
	}
	if !(tr.Lower <= 0 && tr.Upper >= 0) || tr.Days != 84 {
		t.Fatalf("interval %v..%v should hold 0 over 84 days: %+v", tr.Lower, tr.Upper, tr)
	}
	// Over many flat histories, growth (or decline) is claimed in about
	// 1 − TrendConfidence of them: 1% of 400 is 4; allow up to 12.
	claimed := 0
	for seed := uint64(2); seed < 402; seed++ {
		if FitTrend(growing(84, 1e6, 0, 0.2, seed)).Status != TrendFlat {
			claimed++
		}
	}
	if claimed > 12 {
		t.Errorf("growth claimed from noise in %d of 400 flat histories (expected about 4 at %v)", claimed, TrendConfidence)
	}
}

func TestTrendKnownGrowth(t *testing.T) {
	// Exactly 3% a month, compound: every pair slope is ln(1.03) ÷
	// DaysPerMonth, so the projection's factors are 1.03^12 = 1.425760887
	// and 1.03^24 = 2.032794106 (by hand: 1.03^12 = 1.4257608868...).
	tr := FitTrend(growing(84, 1e6, 0.03, 0, 0))
	if tr.Status != TrendGrowing {
		t.Fatalf("status %s, want growing", tr.Status)
	}
	for _, c := range []struct {
		months int
		want   float64
	}{{12, 1.425760887}, {24, 2.032794106}} {
		if got := tr.Factor(float64(c.months)); math.Abs(got-c.want) > 1e-8 {
			t.Errorf("factor(%d) = %.9f, want %.9f", c.months, got, c.want)
		}
	}
	if est, _, _ := tr.Yearly(); math.Abs(est-0.425760887) > 1e-8 {
		t.Errorf("yearly growth %v, want 0.425760887", est)
	}
	// 2% a week (issue 22's example): 12 months are 365 days, 52.142857
	// weeks, so ×1.02^52.142857 = 2.808261 at 12 months and ×1.02^104.285714
	// = 7.886332 at 24 (by hand: ln 1.02 = 0.0198026, × 52.142857 =
	// 1.032566, e^1.032566 = 2.808261).
	weekly := make([]float64, 84)
	for d := range weekly {
		weekly[d] = 1e6 * math.Pow(1.02, float64(d)/7)
	}
	wk := FitTrend(weekly)
	if wk.Status != TrendGrowing || math.Abs(wk.Factor(12)-2.808261) > 1e-6 || math.Abs(wk.Factor(24)-7.886332) > 1e-6 {
		t.Errorf("2%% a week: %+v, factors %.6f and %.6f, want 2.808261 and 7.886332", wk, wk.Factor(12), wk.Factor(24))
	}
	// With ±10% daily noise the interval still excludes zero and holds the
	// true slope.
	noisy := FitTrend(growing(84, 1e6, 0.03, 0.1, 3))
	truth := math.Log(1.03) / DaysPerMonth
	if noisy.Status != TrendGrowing || !(noisy.Lower <= truth && truth <= noisy.Upper) {
		t.Errorf("noisy 3%%/month: %+v, true slope %v", noisy, truth)
	}
	// Declining at 5% a month.
	if d := FitTrend(growing(84, 1e6, -0.05, 0.05, 4)); d.Status != TrendDeclining || !(d.Factor(12) < 1) {
		t.Errorf("declining: %+v", d)
	}
}

func TestTrendTooShortAndGaps(t *testing.T) {
	// 13 days with traffic out of 20 (7 idle days): too short, no factor.
	days := growing(20, 1000, 0.03, 0, 0)
	for _, d := range []int{1, 3, 5, 7, 9, 11, 13} {
		days[d] = 0
	}
	tr := FitTrend(days)
	if tr.Status != TrendTooShort || tr.Days != 13 || !math.IsNaN(tr.Factor(12)) {
		t.Fatalf("13 days with traffic: %+v", tr)
	}
	if _, err := Project(Provisioned, usEast1(t), Options{}, tr, nil, 12); err == nil {
		t.Error("a projection without a fit should be an error")
	}
	// Idle days keep their neighbours' day numbers: the growth is exact.
	days = growing(30, 1000, 0.03, 0, 0)
	days[10], days[11] = 0, 0
	if tr := FitTrend(days); tr.Status != TrendGrowing || math.Abs(tr.Factor(12)-1.425760887) > 1e-8 {
		t.Errorf("gaps: %+v factor %v", tr, tr.Factor(12))
	}
}

// projector evaluates a 30-day minute trace as today's window and returns
// its projector over the same trace's hourly shape.
func projector(t *testing.T, tr Trace, s Settings, current Mode) (*Projector, Evaluation) {
	t.Helper()
	e, err := EvaluateTable(current, usEast1(t), Options{}, Workload{Trace: tr, Settings: s})
	if err != nil {
		t.Fatal(err)
	}
	shape := HourlyShape{Start: tr.Start, Settings: s}
	for h := 0; h*60 < tr.Minutes(); h++ {
		shape.Read, shape.Write = append(shape.Read, sum(tr.Read[h*60:h*60+60])), append(shape.Write, sum(tr.Write[h*60:h*60+60]))
	}
	p, err := NewProjector(e.Summary().Workloads, []HourlyShape{shape}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p, e
}

func near(got, want float64) bool { return math.Abs(got-want) <= 1e-6*math.Max(1, math.Abs(want)) }

func TestProjectionKnownAnswer(t *testing.T) {
	// A provisioned table with 70 write units/s, flat, and no reads, both
	// dimensions at a 70% target (min 1), growing 3% a month. By hand,
	// us-east-1 prices, 730 hours a month:
	//   today: write capacity 70 ÷ 0.7 = 100 units: 100 × 730 × $0.00065 =
	//     $47.45, read at its minimum 1: 730 × $0.00013 = $0.0949;
	//     provisioned $47.5449; on-demand 70 × 3600 × 730 × $0.625/1e6 =
	//     $114.975.
	//   12 months: ×1.03^12 = 1.425760887: writes 99.8033 units/s, capacity
	//     ⌈142.576⌉ = 143: 143 × 0.4745 + 0.0949 = $67.9484; on-demand
	//     114.975 × 1.425760887 = $163.92686.
	//   24 months: ×2.032794106: 142.2956 units/s, capacity ⌈203.279⌉ =
	//     204: 204 × 0.4745 + 0.0949 = $96.8929; on-demand $233.72050.
	//   Provisioned stays the cheaper mode: no crossover.
	policy := &AutoScalingSettings{Target: 0.7, Min: 1, Max: 40000}
	s := Settings{Read: Provisioning{AutoScaling: policy}, Write: Provisioning{AutoScaling: policy}}
	p, e := projector(t, trace(30*1440, flat(0), flat(70)), s, Provisioned)
	if !near(e.MonthlyProvisioned, 47.5449) || !near(e.MonthlyOnDemand, 114.975) {
		t.Fatalf("today: provisioned %v, on-demand %v", e.MonthlyProvisioned, e.MonthlyOnDemand)
	}
	pr, err := Project(Provisioned, usEast1(t), Options{}, FitTrend(growing(84, 1e6, 0.03, 0, 0)), p, 12, 24)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ prov, od float64 }{{67.9484, 163.92686}, {96.8929, 233.72050}}
	for i, w := range want {
		got := pr.At[i].Evaluation
		if !near(got.MonthlyProvisioned, w.prov) || math.Abs(got.MonthlyOnDemand-w.od) > 1e-4 {
			t.Errorf("%d months: provisioned %.4f on-demand %.5f, want %.4f and %.5f", pr.At[i].Months, got.MonthlyProvisioned, got.MonthlyOnDemand, w.prov, w.od)
		}
	}
	if pr.Crossover != 0 || !near(pr.Today.MonthlyProvisioned, 47.5449) {
		t.Errorf("crossover %d (want none), today %+v", pr.Crossover, pr.Today.MonthlyProvisioned)
	}
}

func TestProjectionCrossover(t *testing.T) {
	// An on-demand table with 0.5 write units/s, flat, no reads, growing
	// 10% a month, priced for provisioned at the default auto-scaling (70%,
	// minimum 5). By hand:
	//   on-demand today 0.5 × 3600 × 730 × $0.625/1e6 = $0.82125;
	//   provisioned at the minimum 5 read and 5 write units: 5 × 730 ×
	//   ($0.00013 + $0.00065) = $2.847, as long as writes stay under 5 ×
	//   0.7 = 3.5 units/s (growth up to ×7).
	//   On-demand reaches $2.847 at ×3.4667: 1.1^13 = 3.4523 (on-demand
	//   $2.8352, still cheaper), 1.1^14 = 3.7975 ($3.1187, dearer): the
	//   crossover is month 14, to provisioned. At 12 months (×3.1384)
	//   on-demand is still cheaper ($2.5774); at 24 (×9.8497: 4.925
	//   units/s, capacity ⌈7.04⌉ = 8) provisioned costs 5 × 0.0949 + 8 ×
	//   0.4745 = $4.2705 against on-demand $8.0891.
	p, _ := projector(t, trace(30*1440, flat(0), flat(0.5)), Settings{}, OnDemand)
	pr, err := Project(OnDemand, usEast1(t), Options{}, FitTrend(growing(84, 1e6, 0.10, 0, 0)), p, 12, 24)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Crossover != 14 || pr.CrossoverTo != Provisioned {
		t.Errorf("crossover month %d to %s, want 14 to PROVISIONED", pr.Crossover, pr.CrossoverTo)
	}
	at12, at24 := pr.At[0].Evaluation, pr.At[1].Evaluation
	if !near(at12.MonthlyProvisioned, 2.847) || math.Abs(at12.MonthlyOnDemand-2.5774) > 1e-4 {
		t.Errorf("12 months: %v %v", at12.MonthlyProvisioned, at12.MonthlyOnDemand)
	}
	if !near(at24.MonthlyProvisioned, 4.2705) || math.Abs(at24.MonthlyOnDemand-8.0891) > 1e-4 {
		t.Errorf("24 months: %v %v", at24.MonthlyProvisioned, at24.MonthlyOnDemand)
	}
}

func TestProjectionFlatIsToday(t *testing.T) {
	// A flat trend projects today's figures, whatever the shape.
	p, e := projector(t, trace(30*1440, sine(300, 200), spiky(50, 8)), Settings{}, OnDemand)
	pr, err := Project(OnDemand, usEast1(t), Options{}, FitTrend(growing(84, 1e6, 0, 0.2, 1)), p, 12, 24)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range pr.At {
		if m.Factor != 1 || m.Evaluation.MonthlyOnDemand != e.MonthlyOnDemand || m.Evaluation.MonthlyProvisioned != e.MonthlyProvisioned {
			t.Errorf("%d months: %+v against today %v/%v", m.Months, m.Evaluation.MonthlyOnDemand, e.MonthlyOnDemand, e.MonthlyProvisioned)
		}
	}
	if p.base != nil {
		t.Error("a flat trend should simulate nothing")
	}
	if _, err := p.At(math.NaN()); err == nil {
		t.Error("a NaN factor should be an error")
	}
	bad := HourlyShape{Start: traceStart, Read: []float64{1, math.NaN()}, Write: []float64{1, 1}}
	if _, err := NewProjector(e.Summary().Workloads, []HourlyShape{bad}, nil); err == nil {
		t.Error("a shape with a NaN hour should be refused")
	}
	if _, err := NewProjector(e.Summary().Workloads, nil, nil); err == nil {
		t.Error("a projection without shapes should be refused")
	}
}
