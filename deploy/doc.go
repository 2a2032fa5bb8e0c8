// Package deploy holds the deployment files (the Helm chart in helm/, the
// Compose stack docker-compose.yml with its Prometheus and Grafana
// configuration) and the tests that check them, with the systemd unit and
// the IRSA trust policy of examples/.
package deploy

// The chart's PrometheusRule is the alert pack, rendered by the exporter.
//go:generate go run .. alerts render --format prometheus-operator --output-dir helm/dynamodb-exporter/files
