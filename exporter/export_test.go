package exporter

// Test hooks for the external tests (package exporter_test).

// AnnouncedExpositions returns how many expositions the app still
// announces publishes to.
func (a *App) AnnouncedExpositions() int {
	a.published.mu.Lock()
	defer a.published.mu.Unlock()
	return len(a.published.xs)
}
