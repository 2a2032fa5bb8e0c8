package awssim

import "sync"

// inFlight counts the requests being handled, by service, operation and
// region, and the most seen at once.
type inFlight struct {
	mu   sync.Mutex
	now  map[string]int
	peak map[string]int
}

func flightKey(service, op, region string) string { return service + ":" + op + ":" + region }

func (f *inFlight) enter(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.now == nil {
		f.now, f.peak = map[string]int{}, map[string]int{}
	}
	f.now[key]++
	f.peak[key] = max(f.peak[key], f.now[key])
}

func (f *inFlight) leave(key string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now[key]--
}

// PeakInFlight is the most requests of service and operation in region
// that were being answered at the same time (an injected delay included)
// since the server started or ResetPeakInFlight: a test can see whether a
// caller ever overlapped its own calls.
func (s *Server) PeakInFlight(service, op, region string) int {
	s.flight.mu.Lock()
	defer s.flight.mu.Unlock()
	return s.flight.peak[flightKey(service, op, region)]
}

// ResetPeakInFlight forgets the peaks (requests in flight stay counted).
func (s *Server) ResetPeakInFlight() {
	s.flight.mu.Lock()
	defer s.flight.mu.Unlock()
	s.flight.peak = map[string]int{}
	if s.flight.now == nil {
		s.flight.now = map[string]int{}
	}
}
