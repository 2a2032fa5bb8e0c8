package exposition

import "testing"

// Test hooks for the external tests (package exposition_test).

// EncodingsOnRequest returns the encodings done on a request's path.
func (x *Cache) EncodingsOnRequest() int64 { return x.onRequest.Load() }

// Generations returns the generations built.
func (x *Cache) Generations() int64 { return x.built.Load() }

// WaitEncoded waits until the sources' current snapshots are encoded.
func (x *Cache) WaitEncoded(t *testing.T) { waitEncoded(t, x) }

// GatheredTogether reports whether two sources emitted the same family,
// so that the snapshots are gathered together rather than one by one.
func (x *Cache) GatheredTogether() bool { return x.joint.Load() }
