package awssim

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
)

// DefaultAccountID is the simulated account's 12-digit ID.
const DefaultAccountID = "123456789012"

// Service names used in RequestRecord, Fault and IAM actions.
const (
	ServiceDynamoDB    = "dynamodb"
	ServiceAutoScaling = "application-autoscaling"
	ServiceCloudWatch  = "cloudwatch"
	ServiceSTS         = "sts"
)

// serviceUnknown records a request that matches no simulated service.
const serviceUnknown = "unknown"

// maxBodyBytes bounds a request body; AWS rejects far smaller bodies already.
const maxBodyBytes = 16 << 20

// Server is a simulated AWS account behind one HTTP endpoint. It is safe for
// concurrent use. Create it with New.
type Server struct {
	clk     clock.Clock
	account string
	log     *slog.Logger

	mu      sync.Mutex
	regions map[string]*regionState
	keys    map[string]*assumedKey // access key ID -> assumed-role session
	nextID  uint64                 // request and key counter

	metrics *MetricStore
	srcMu   sync.RWMutex
	sources []MetricSource
	hooks   []func() // OnRequest hooks, guarded by srcMu

	obs     observer
	faults  faultSet
	latency latencySet
	skew    clockSkew
	flight  inFlight
	// listDelay is how long a new metric stays out of ListMetrics
	// (SetListMetricsDelay), in nanoseconds.
	listDelay atomic.Int64
	// dps enforces CloudWatch's datapoint quotas (SetDatapointQuota) and
	// counts the datapoints GetMetricData answers.
	dps dpsQuota
	// pageDatapoints caps the datapoints of one GetMetricData answer
	// (SetGetMetricDataPageSize); 0 means no cap of the server's own.
	pageDatapoints atomic.Int64
	// sessionLifetime is the wall-clock lifetime of the credentials
	// AssumeRole issues (SetSessionLifetime), in nanoseconds; 0: the
	// DurationSeconds asked, on the server clock.
	sessionLifetime atomic.Int64

	lnMu sync.Mutex
	ln   net.Listener
	srv  *http.Server
	url  string
	done chan struct{}
}

// Option configures a Server.
type Option func(*Server)

// WithClock makes the server take every "now" from c (default clock.Real{}).
func WithClock(c clock.Clock) Option {
	return func(s *Server) {
		if c != nil {
			s.clk = c
		}
	}
}

// WithLogger makes the server log one line per request (service, operation,
// region, status) to l. By default nothing is logged.
func WithLogger(l *slog.Logger) Option {
	return func(s *Server) {
		if l != nil {
			s.log = l
		}
	}
}

// New returns a server with an empty account. Call Start to listen, or mount
// Handler in an httptest.Server.
func New(opts ...Option) *Server {
	s := &Server{
		clk:     clock.Real{},
		account: DefaultAccountID,
		log:     slog.New(slog.DiscardHandler),
		regions: make(map[string]*regionState),
		keys:    make(map[string]*assumedKey),
		metrics: NewMetricStore(),
	}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Clock returns the clock the server reads "now" from.
func (s *Server) Clock() clock.Clock { return s.clk }

// now is the single place the server reads the time.
func (s *Server) now() time.Time { return s.clk.Now().UTC() }

// Start listens on a free port of 127.0.0.1 and serves in the background.
func (s *Server) Start() error {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	if s.ln != nil {
		return errors.New("awssim: server already started")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("awssim: listen on 127.0.0.1: %w", err)
	}
	s.ln = ln
	s.url = "http://" + ln.Addr().String()
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	s.srv, s.done = srv, done
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("awssim: serve", "err", err)
		}
	}()
	return nil
}

// URL returns the base URL of a started server ("http://127.0.0.1:PORT"), or
// "" before Start. Use it as every client's BaseEndpoint.
func (s *Server) URL() string {
	s.lnMu.Lock()
	defer s.lnMu.Unlock()
	return s.url
}

// Close stops a started server and waits for it to finish. It is a no-op if
// the server was never started.
func (s *Server) Close() error {
	s.lnMu.Lock()
	srv, done := s.srv, s.done
	s.srv, s.ln, s.url = nil, nil, ""
	s.lnMu.Unlock()
	if srv == nil {
		return nil
	}
	err := srv.Close()
	<-done
	if err != nil {
		return fmt.Errorf("awssim: close: %w", err)
	}
	return nil
}

// Handler returns the http.Handler serving every simulated service.
func (s *Server) Handler() http.Handler { return s }

// ServeHTTP tells the service apart by the request shape and dispatches it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBodyBytes))
	if err != nil {
		http.Error(w, "awssim: read request body", http.StatusBadRequest)
		return
	}
	s.runHooks()
	c := &call{srv: s, r: r, body: body}
	c.rec.Time = s.now()
	if !s.classify(c) {
		// Answered in the shape the request was sent in: the query
		// protocol's XML for a form (an unparsable one, or an unknown API
		// version), else AWS JSON 1.0, as DynamoDB answers an unknown target.
		c.proto = protoJSON10
		if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
			c.proto = protoQuery
		}
		c.service = serviceUnknown
		s.finish(w, c, nil, apiErr(ErrUnknownOperation, "awssim: request does not match any simulated service protocol"))
		return
	}
	c.rec.Service, c.rec.Operation = c.service, c.op
	out, err := s.dispatch(c)
	s.finish(w, c, out, err)
}

// classify sets the service, operation and protocol of c from the request.
func (s *Server) classify(c *call) bool {
	r := c.r
	if op, ok := strings.CutPrefix(r.URL.Path, cborPathPrefix); ok {
		c.service, c.op, c.proto = ServiceCloudWatch, op, protoCBOR
		return true
	}
	if target := r.Header.Get("X-Amz-Target"); target != "" {
		prefix, op, _ := strings.Cut(target, ".")
		switch prefix {
		case "DynamoDB_20120810":
			c.service, c.op, c.proto = ServiceDynamoDB, op, protoJSON10
			return true
		case "AnyScaleFrontendService":
			c.service, c.op, c.proto = ServiceAutoScaling, op, protoJSON11
			return true
		}
		return false
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		form, err := parseForm(c.body)
		if err != nil {
			return false
		}
		c.form = form
		switch form.Get("Version") {
		case stsVersion:
			c.service, c.op, c.proto = ServiceSTS, form.Get("Action"), protoQuery
			return true
		case "2010-08-01":
			// CloudWatch over the query protocol (older SDKs): refused in
			// the query shape so the caller sees why.
			c.service, c.op, c.proto = ServiceCloudWatch, form.Get("Action"), protoQuery
			c.queryUnsupported = true
			return true
		}
	}
	return false
}

// dispatch authenticates c and runs its operation handler.
func (s *Server) dispatch(c *call) (any, error) {
	if c.queryUnsupported {
		return nil, apiErr(ErrUnknownOperation, "awssim: CloudWatch is only simulated over the rpc-v2-cbor protocol")
	}
	if err := s.authenticate(c); err != nil {
		return nil, err
	}
	key := flightKey(c.service, c.op, c.region)
	s.flight.enter(key)
	defer s.flight.leave(key)
	if err := s.latency.wait(c.r.Context(), c.service, c.op); err != nil {
		return nil, err
	}
	h := s.handler(c.service, c.op)
	if h == nil {
		return nil, apiErr(ErrUnknownOperation, fmt.Sprintf("awssim: operation %s is not simulated for %s", c.op, c.service))
	}
	return h(c)
}

// handler returns the implementation of service/op, or nil.
func (s *Server) handler(service, op string) func(*call) (any, error) {
	switch service {
	case ServiceDynamoDB:
		return dynamoHandlers[op]
	case ServiceAutoScaling:
		return autoScalingHandlers[op]
	case ServiceCloudWatch:
		return cloudWatchHandlers[op]
	case ServiceSTS:
		return stsHandlers[op]
	}
	return nil
}

// finish records the request and writes the response in c's protocol.
func (s *Server) finish(w http.ResponseWriter, c *call, out any, err error) {
	resp := encodeResponse(s, c, out, err)
	c.rec.Status = resp.status
	c.rec.ErrorCode = resp.errCode
	s.obs.add(c.rec)
	s.log.Debug("awssim request", "service", c.service, "op", c.op, "region", c.rec.Region, "status", resp.status, "error", resp.errCode)
	for k, v := range resp.header {
		w.Header()[k] = v
	}
	w.Header().Set("X-Amzn-Requestid", s.requestID())
	if now, on := s.awsTime(); on {
		w.Header().Set("Date", now.Format(http.TimeFormat))
	}
	if c.reset && len(resp.body) > 1 {
		s.resetMidBody(w, resp)
		return
	}
	w.WriteHeader(resp.status)
	if _, werr := w.Write(resp.body); werr != nil {
		s.log.Debug("awssim: write response", "err", werr)
	}
}

// resetMidBody promises the whole body, writes half of it and closes the
// connection.
func (s *Server) resetMidBody(w http.ResponseWriter, resp response) {
	w.Header().Set("Content-Length", strconv.Itoa(len(resp.body)))
	w.WriteHeader(resp.status)
	_, _ = w.Write(resp.body[:len(resp.body)/2])
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler) // closes the connection without logging
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = buf.Flush()
	_ = conn.Close()
}

// requestID returns a fresh, UUID-shaped request ID.
func (s *Server) requestID() string {
	s.mu.Lock()
	s.nextID++
	n := s.nextID
	s.mu.Unlock()
	return fmt.Sprintf("00000000-0000-4000-8000-%012x", n)
}
