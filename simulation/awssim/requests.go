package awssim

import (
	"slices"
	"sync"
	"time"
)

// RequestRecord describes one request the server answered.
type RequestRecord struct {
	Time        time.Time // server clock when the request arrived
	Service     string    // ServiceDynamoDB, ServiceCloudWatch, ...
	Operation   string    // e.g. "DescribeTable"
	Region      string    // from the SigV4 credential scope
	AccessKeyID string    // from the SigV4 credential scope
	Principal   string    // caller ARN the key resolved to
	Tables      []string  // tables the request named, if any
	Queries     int       // GetMetricData: number of MetricDataQueries
	ReadUnits   float64   // Scan: read capacity units charged, reported or not
	Status      int       // HTTP status answered
	ErrorCode   string    // AWS error code answered, "" on success
}

// observer keeps the request log.
type observer struct {
	mu   sync.Mutex
	recs []RequestRecord
}

func (o *observer) add(r RequestRecord) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.recs = append(o.recs, r)
}

// Requests returns a copy of every request recorded since the last
// ResetRequests, oldest first. A request is recorded before its response is
// written, so it is visible as soon as the client call returns.
func (s *Server) Requests() []RequestRecord {
	s.obs.mu.Lock()
	defer s.obs.mu.Unlock()
	out := make([]RequestRecord, len(s.obs.recs))
	for i, r := range s.obs.recs {
		r.Tables = slices.Clone(r.Tables)
		out[i] = r
	}
	return out
}

// RequestCount returns how many requests for service and operation were
// recorded; an empty operation counts every operation of the service.
func (s *Server) RequestCount(service, operation string) int {
	s.obs.mu.Lock()
	defer s.obs.mu.Unlock()
	n := 0
	for _, r := range s.obs.recs {
		if r.Service == service && (operation == "" || r.Operation == operation) {
			n++
		}
	}
	return n
}

// ResetRequests forgets every recorded request.
func (s *Server) ResetRequests() {
	s.obs.mu.Lock()
	defer s.obs.mu.Unlock()
	s.obs.recs = nil
}
