package capacity

import "testing"

// BenchmarkSimulateTable30Days simulates one table or GSI (read and write,
// default auto-scaling) over 30 days of per-minute history at once.
func BenchmarkSimulateTable30Days(b *testing.B) {
	tr := trace(30*1440, sine(300, 200), spiky(50, 8))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SimulateTable(tr, Settings{}, DefaultAutoScaling()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamHour advances a TableStream by one hour of minutes: what
// an hourly cycle of the capacity collector costs per table or GSI, where
// SimulateTable re-simulates the whole 30 days.
func BenchmarkStreamHour(b *testing.B) {
	tr := trace(30*1440, sine(300, 200), spiky(50, 8))
	st, err := NewTableStream(tr.Start, Settings{}, nil, ReadWrite{Read: tr.Read[0], Write: tr.Write[0]})
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		for range 60 {
			st.Step(tr.Read[i], tr.Write[i])
			i = (i + 1) % len(tr.Read)
		}
	}
}

// BenchmarkProjectGrowing projects one table or GSI (30 days of hourly
// shape, default auto-scaling) with a growing trend to 12 and 24 months:
// what the capacity collector spends once a day per workload of a growing
// table (the shape simulated at factor 1, 12 and 24 months; a crossover
// adds up to five more).
func BenchmarkProjectGrowing(b *testing.B) {
	tr := trace(30*1440, sine(300, 200), spiky(50, 8))
	e, err := EvaluateTable(OnDemand, Prices{OnDemandReadPerMillion: 0.125, OnDemandWritePerMillion: 0.625, ProvisionedRCUHour: 0.00013, ProvisionedWCUHour: 0.00065}, Options{}, Workload{Trace: tr})
	if err != nil {
		b.Fatal(err)
	}
	shape := HourlyShape{Start: tr.Start}
	for h := 0; h*60 < tr.Minutes(); h++ {
		shape.Read, shape.Write = append(shape.Read, sum(tr.Read[h*60:h*60+60])), append(shape.Write, sum(tr.Write[h*60:h*60+60]))
	}
	trend := FitTrend(growing(84, 1e6, 0.03, 0, 0))
	b.ReportAllocs()
	for b.Loop() {
		p, err := NewProjector(e.Summary().Workloads, []HourlyShape{shape}, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Project(OnDemand, Prices{OnDemandReadPerMillion: 0.125, OnDemandWritePerMillion: 0.625, ProvisionedRCUHour: 0.00013, ProvisionedWCUHour: 0.00065}, Options{}, trend, p, 12, 24); err != nil {
			b.Fatal(err)
		}
	}
}
