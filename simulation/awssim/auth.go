package awssim

import (
	"fmt"
	"strings"
)

// sigV4Scope is the credential scope of a SigV4 Authorization header.
type sigV4Scope struct {
	accessKeyID string
	date        string
	region      string
	service     string
}

// parseAuthorization reads the credential scope of a SigV4 header of the form
// "AWS4-HMAC-SHA256 Credential=AKID/DATE/REGION/SERVICE/aws4_request, ...".
// The signature itself is not verified.
func parseAuthorization(h string) (sigV4Scope, error) {
	alg, rest, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || alg != "AWS4-HMAC-SHA256" {
		return sigV4Scope{}, fmt.Errorf("authorization header must use AWS4-HMAC-SHA256")
	}
	for _, part := range strings.Split(rest, ",") {
		v, found := strings.CutPrefix(strings.TrimSpace(part), "Credential=")
		if !found {
			continue
		}
		f := strings.Split(v, "/")
		if len(f) != 5 || f[4] != "aws4_request" || f[0] == "" || f[2] == "" {
			return sigV4Scope{}, fmt.Errorf("credential must have the form AKID/DATE/REGION/SERVICE/aws4_request")
		}
		return sigV4Scope{accessKeyID: f[0], date: f[1], region: f[2], service: f[3]}, nil
	}
	return sigV4Scope{}, fmt.Errorf("authorization header has no Credential")
}

// signingName is the SigV4 service name each simulated service is signed for.
func signingName(service string) string {
	if service == ServiceCloudWatch {
		return "monitoring"
	}
	return service
}

// authenticate reads region and caller identity from the request's SigV4
// Authorization header.
func (s *Server) authenticate(c *call) error {
	h := c.r.Header.Get("Authorization")
	if h == "" {
		return apiErr(ErrMissingAuth, "Request is missing Authentication Token")
	}
	scope, err := parseAuthorization(h)
	if err != nil {
		return apiErr(ErrIncompleteSignature, err.Error())
	}
	if want := signingName(c.service); scope.service != want {
		return apiErr(ErrInvalidSignature, fmt.Sprintf("Credential should be scoped to correct service: '%s'.", want))
	}
	c.region = scope.region
	c.rec.Region = scope.region
	if err := s.checkSigningTime(c.r); err != nil {
		return err
	}
	id, err := s.resolveIdentity(scope.accessKeyID, c.r.Header.Get("X-Amz-Security-Token"))
	if err != nil {
		return err
	}
	c.identity = id
	c.rec.AccessKeyID = id.AccessKeyID
	c.rec.Principal = id.ARN
	return nil
}
