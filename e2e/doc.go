// Package e2e holds the end-to-end test of the exporter with the real
// monitoring stack: the exporter binary on a simulated account, Prometheus
// scraping it with the alert pack's rules loaded, and Alertmanager routing
// the alerts to a webhook the test runs. It has no code of its own; see
// e2e_test.go.
package e2e
