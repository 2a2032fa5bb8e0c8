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
