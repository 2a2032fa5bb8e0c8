package collectors

import (
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// tableLabel returns the value of the table label of a metric, or "".
func tableLabel(m prometheus.Metric) string {
	var pb dto.Metric
	if err := m.Write(&pb); err != nil {
		return ""
	}
	for _, lp := range pb.GetLabel() {
		if lp.GetName() == catalogue.LabelTable {
			return lp.GetValue()
		}
	}
	return ""
}
