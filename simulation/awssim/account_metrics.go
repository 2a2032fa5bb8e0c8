package awssim

import "time"

// Account-level metrics DynamoDB publishes without dimensions ("DynamoDB
// metrics and dimensions", Amazon DynamoDB Developer Guide):
// AccountProvisionedReadCapacityUtilization and
// AccountProvisionedWriteCapacityUtilization are "the percentage of
// provisioned read (write) capacity units utilized by an account", that is
// the provisioned total of the region's provisioned tables and GSIs over the
// account-level quota; AccountMaxReads and AccountMaxWrites are the account
// quotas, AccountMaxTableLevelReads and AccountMaxTableLevelWrites the
// table-level ones.
var accountMetricNames = []string{
	"AccountProvisionedReadCapacityUtilization", "AccountProvisionedWriteCapacityUtilization",
	"AccountMaxReads", "AccountMaxWrites", "AccountMaxTableLevelReads", "AccountMaxTableLevelWrites",
}

// accountMetrics is the MetricSource of the account-level metrics of every
// region that has a table. The simulator keeps no history of provisioned
// capacity, so every minute of a query answers the state at the time of the
// query: right for the recent minutes a poller reads, flat for the past.
type accountMetrics struct {
	srv *Server
}

// ListMetrics implements MetricSource.
func (a accountMetrics) ListMetrics(region string) []Metric {
	if !a.srv.hasTables(region) {
		return nil
	}
	out := make([]Metric, 0, len(accountMetricNames))
	for _, n := range accountMetricNames {
		out = append(out, Metric{Namespace: NamespaceDynamoDB, Name: n})
	}
	return out
}

// Datapoints implements MetricSource.
func (a accountMetrics) Datapoints(region string, m Metric, start, end time.Time) []Datapoint {
	if m.Namespace != NamespaceDynamoDB || len(m.Dimensions) > 0 || !a.srv.hasTables(region) {
		return nil
	}
	v, ok := a.srv.accountMetricValue(region, m.Name)
	if !ok {
		return nil
	}
	if now := a.srv.now().Truncate(time.Minute).Add(time.Minute); end.After(now) {
		end = now
	}
	var out []Datapoint
	for t := start.Truncate(time.Minute); t.Before(end); t = t.Add(time.Minute) {
		if t.Before(start) {
			continue
		}
		out = append(out, Datapoint{Time: t, Sum: v, SampleCount: 1, Minimum: v, Maximum: v})
	}
	return out
}

// hasTables reports whether region has a table.
func (s *Server) hasTables(region string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.regions[region]
	return ok && len(r.tables) > 0
}

// accountMetricValue is the current value of an account-level metric.
func (s *Server) accountMetricValue(region, name string) (float64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l := s.limitsOf(region)
	var read, write int64
	for _, t := range s.region(region).tables {
		if t.BillingMode == BillingProvisioned {
			r, w := provisionedTotal(t)
			read, write = read+r, write+w
		}
	}
	switch name {
	case "AccountProvisionedReadCapacityUtilization":
		return 100 * float64(read) / float64(l.AccountMaxReadCapacityUnits), true
	case "AccountProvisionedWriteCapacityUtilization":
		return 100 * float64(write) / float64(l.AccountMaxWriteCapacityUnits), true
	case "AccountMaxReads":
		return float64(l.AccountMaxReadCapacityUnits), true
	case "AccountMaxWrites":
		return float64(l.AccountMaxWriteCapacityUnits), true
	case "AccountMaxTableLevelReads":
		return float64(l.TableMaxReadCapacityUnits), true
	case "AccountMaxTableLevelWrites":
		return float64(l.TableMaxWriteCapacityUnits), true
	}
	return 0, false
}
