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
