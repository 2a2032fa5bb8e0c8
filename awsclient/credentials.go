package awsclient

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
)

// DefaultCredentialExpiryWindow is how long before its expiry an assumed
// role's session is renewed: a request signed in the last moments of a
// session would otherwise reach AWS after it expired and be refused with
// ExpiredTokenException.
const DefaultCredentialExpiryWindow = time.Minute

// After STS refuses to renew an assumed role (its trust policy changed, the
// base credentials expired, STS failed), it is asked again after
// refusalBackoffMin, then after twice as long each time, up to
// refusalBackoffMax. Without it the SDK's credential cache, which keeps no
// failure, calls AssumeRole for every AWS call the collectors make (one per
// table described), for as long as the refusal lasts.
const (
	refusalBackoffMin = time.Minute
	refusalBackoffMax = 5 * time.Minute
)

// refusalBackoff wraps an assumed role's credential provider, below the
// SDK's credential cache: while a refusal is recent, it answers the same
// error (wrapped, so its AWS error code still shows) without calling STS.
type refusalBackoff struct {
	provider aws.CredentialsProvider
	role     string
	now      func() time.Time

	mu        sync.Mutex
	failures  int
	lastErr   error
	notBefore time.Time
}

// Retrieve implements aws.CredentialsProvider.
func (p *refusalBackoff) Retrieve(ctx context.Context) (aws.Credentials, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now()
	if p.lastErr != nil && now.Before(p.notBefore) {
		return aws.Credentials{}, fmt.Errorf("assuming role %s: STS refused, asking again from %s: %w",
			p.role, p.notBefore.UTC().Format(time.RFC3339), p.lastErr)
	}
	creds, err := p.provider.Retrieve(ctx)
	if err != nil {
		p.failures++
		p.lastErr = err
		p.notBefore = now.Add(refusalDelay(p.failures))
		return aws.Credentials{}, err
	}
	p.failures, p.lastErr = 0, nil
	return creds, nil
}

// refusalDelay is how long to wait after the n-th refusal in a row.
func refusalDelay(n int) time.Duration {
	d := refusalBackoffMin
	for i := 1; i < n && d < refusalBackoffMax; i++ {
		d *= 2
	}
	return min(d, refusalBackoffMax)
}
