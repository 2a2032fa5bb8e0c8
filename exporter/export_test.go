package exporter

import "testing"

// Test hooks for the external tests (package exporter_test).

// LastExposition returns the exposition built by the app's last Handler call.
func (a *App) LastExposition() *Exposition {
	a.published.mu.Lock()
	defer a.published.mu.Unlock()
	return a.published.xs[len(a.published.xs)-1].Value()
}

// AnnouncedExpositions returns how many expositions the app still
// announces publishes to.
func (a *App) AnnouncedExpositions() int {
	a.published.mu.Lock()
	defer a.published.mu.Unlock()
	return len(a.published.xs)
}

// EncodingsOnRequest returns the encodings done on a request's path.
func (x *Exposition) EncodingsOnRequest() int64 { return x.onRequest.Load() }

// Generations returns the generations built.
func (x *Exposition) Generations() int64 { return x.built.Load() }

// WaitEncoded waits until the collectors' current snapshots are encoded.
func (x *Exposition) WaitEncoded(t *testing.T) { waitEncoded(t, x) }

// GatheredTogether reports whether two collectors emitted the same family,
// so that the snapshots are gathered together rather than one by one.
func (x *Exposition) GatheredTogether() bool { return x.joint.Load() }
