package awssim

import (
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// signatureWindow is how far a request's signing time may be from AWS's
// clock: "In most cases, a request must reach AWS within five minutes of
// the time stamp in the request. Otherwise, AWS denies the request." (IAM
// User Guide, "AWS Signature Version 4 for API requests",
// https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_aws-signing.html).
const signatureWindow = 5 * time.Minute

// clockSkew is the signing-time check: off by default (the simulated
// clock of a replay runs far from the wall clock the SDK signs with), else
// the offset of AWS's clock from the wall clock.
type clockSkew struct {
	on atomic.Bool
	ns atomic.Int64
}

// SetClockSkew switches the signing-time check on with AWS's clock d ahead
// of the wall clock (d < 0: behind; 0: AWS and the caller agree), as if the
// caller's host clock were off by -d: a request whose X-Amz-Date is more
// than five minutes from the wall clock plus d is refused with
// InvalidSignatureException ("Signature expired"), and every answer
// carries AWS's time in its Date header, from which the SDK corrects its
// signing time. The check is against the wall clock because the SDK signs
// with it, whatever clock the simulated account runs on.
func (s *Server) SetClockSkew(d time.Duration) {
	s.skew.ns.Store(int64(d))
	s.skew.on.Store(true)
}

// ClearClockSkew switches the signing-time check off again.
func (s *Server) ClearClockSkew() { s.skew.on.Store(false) }

// awsTime is AWS's clock and whether the check is on.
func (s *Server) awsTime() (time.Time, bool) {
	return time.Now().Add(time.Duration(s.skew.ns.Load())).UTC(), s.skew.on.Load()
}

// checkSigningTime refuses a request signed too far from AWS's clock.
func (s *Server) checkSigningTime(r *http.Request) error {
	now, on := s.awsTime()
	if !on {
		return nil
	}
	const layout = "20060102T150405Z"
	signed, err := time.Parse(layout, r.Header.Get("X-Amz-Date"))
	if err != nil {
		return apiErr(ErrIncompleteSignature, "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header.")
	}
	switch {
	case signed.Before(now.Add(-signatureWindow)):
		return apiErr(ErrInvalidSignature, fmt.Sprintf("Signature expired: %s is now earlier than %s (%s - 5 min.)",
			signed.Format(layout), now.Add(-signatureWindow).Format(layout), now.Format(layout)))
	case signed.After(now.Add(signatureWindow)):
		return apiErr(ErrInvalidSignature, fmt.Sprintf("Signature not yet current: %s is still later than %s (%s + 5 min.)",
			signed.Format(layout), now.Add(signatureWindow).Format(layout), now.Format(layout)))
	}
	return nil
}
