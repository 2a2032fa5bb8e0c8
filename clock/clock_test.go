package clock

import (
	"sync"
	"testing"
	"time"
)

func TestManualMovesOnlyWhenTold(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m := NewManual(start)
	if !m.Now().Equal(start) {
		t.Fatalf("Now = %v, want %v", m.Now(), start)
	}
	if got := m.Advance(90 * time.Second); !got.Equal(start.Add(90*time.Second)) || !m.Now().Equal(got) {
		t.Errorf("Advance returned %v, Now %v", got, m.Now())
	}
	m.Set(start)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); m.Advance(time.Minute) }()
	}
	wg.Wait()
	if want := start.Add(8 * time.Minute); !m.Now().Equal(want) {
		t.Errorf("after 8 concurrent advances Now = %v, want %v", m.Now(), want)
	}
	if d := time.Since(Real{}.Now()); d < 0 || d > time.Second {
		t.Errorf("Real is %v away from the wall clock", d)
	}
}
