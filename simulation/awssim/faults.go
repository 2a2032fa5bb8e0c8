package awssim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Fault makes matching requests fail or slow down. A request matches when its
// service equals Service (or Service is empty: every service), its operation
// equals Operation (or Operation is empty), its SigV4 region equals Region
// (or Region is empty) and, when Table is set, the request names that table (DynamoDB
// TableName or table ARN, an Auto Scaling ResourceId of the table or its
// indexes, or a CloudWatch query with dimension TableName).
type Fault struct {
	Service   string
	Operation string
	Region    string
	Table     string

	// Error is answered in the service's protocol; empty means no error
	// (a pure delay).
	Error ErrorKind
	// Message overrides the default message of Error.
	Message string
	// Delay is waited (wall-clock, honouring request cancellation) before
	// answering.
	Delay time.Duration
	// Reset answers the request as usual but closes the connection half
	// way through the body (a connection reset mid-body): the caller sees
	// the full Content-Length promised and fewer bytes.
	Reset bool
	// Times is how many matching requests the fault applies to; 0 means all.
	Times int
	// OnMatch, when set, runs (with no server lock held) when the fault
	// applies, before its delay and error: a test can change the account
	// in the middle of a request, for instance delete the table a
	// DescribeTable names after ListTables listed it. With no Error and no
	// Delay the request then proceeds against the changed account.
	OnMatch func()
	// Edit, when set, rewrites the answer of a request that succeeds: the
	// handler's output, as a generic document (objects as map[string]any,
	// arrays as []any, CloudWatch timestamps as time.Time), is passed to
	// Edit before it is encoded. A test makes AWS answer a malformed shape
	// with it (values missing, timestamps repeated, an unknown enum value).
	Edit func(doc map[string]any)
}

// errResetMidBody tells admit that the answer is to be cut mid-body.
var errResetMidBody = errors.New("awssim: reset mid-body")

// faultSet is the fault injection and IAM deny state.
type faultSet struct {
	mu     sync.Mutex
	faults []*activeFault
	deny   map[string]bool
}

type activeFault struct {
	f    Fault
	left int // remaining uses; <0 means unlimited
}

// InjectFault registers f. Faults are tried in registration order and the
// first match applies.
func (s *Server) InjectFault(f Fault) {
	left := f.Times
	if left <= 0 {
		left = -1
	}
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.faults = append(s.faults.faults, &activeFault{f: f, left: left})
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	s.faults.faults = nil
}

// Deny makes the given IAM actions (e.g. "dynamodb:DescribeTable",
// "cloudwatch:GetMetricData", "application-autoscaling:DescribeScalableTargets")
// answer AccessDenied for every caller, as an implicit deny does.
func (s *Server) Deny(actions ...string) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	if s.faults.deny == nil {
		s.faults.deny = make(map[string]bool)
	}
	for _, a := range actions {
		s.faults.deny[a] = true
	}
}

// Allow removes actions from the deny list.
func (s *Server) Allow(actions ...string) {
	s.faults.mu.Lock()
	defer s.faults.mu.Unlock()
	for _, a := range actions {
		delete(s.faults.deny, a)
	}
}

func (fs *faultSet) denied(action string) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.deny[action]
}

// apply finds the first fault matching the request, consumes one use of it,
// waits its delay and returns its error.
func (fs *faultSet) apply(ctx context.Context, service, op, region string, tables []string) (edit func(map[string]any), err error) {
	f, ok := fs.take(service, op, region, tables)
	if !ok {
		return nil, nil
	}
	edit = f.Edit
	if f.OnMatch != nil {
		f.OnMatch()
	}
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, fmt.Errorf("awssim: injected delay: %w", ctx.Err())
		}
	}
	if f.Reset {
		return edit, errResetMidBody
	}
	if f.Error == "" {
		return edit, nil
	}
	msg := f.Message
	if msg == "" {
		msg = defaultFaultMessage(f.Error, tables)
	}
	return nil, apiErr(f.Error, msg)
}

func (fs *faultSet) take(service, op, region string, tables []string) (Fault, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for i, af := range fs.faults {
		f := af.f
		if (f.Service != "" && f.Service != service) || (f.Operation != "" && f.Operation != op) {
			continue
		}
		if f.Region != "" && f.Region != region {
			continue
		}
		if f.Table != "" && !slices.Contains(tables, f.Table) {
			continue
		}
		if af.left > 0 {
			af.left--
			if af.left == 0 {
				fs.faults = slices.Delete(fs.faults, i, i+1)
			}
		}
		return f, true
	}
	return Fault{}, false
}

// defaultFaultMessage is the message AWS typically sends with kind.
func defaultFaultMessage(kind ErrorKind, tables []string) string {
	switch kind {
	case ErrThrottling:
		return "Rate exceeded"
	case ErrInternal:
		return "Internal server error"
	case ErrAccessDenied:
		return "User is not authorized to perform this action"
	case ErrResourceNotFound:
		if len(tables) > 0 {
			return "Requested resource not found: Table: " + tables[0] + " not found"
		}
		return "Requested resource not found"
	}
	return "Injected fault: " + string(kind)
}
