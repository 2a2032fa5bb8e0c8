package awssim

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

const (
	stsVersion = "2011-06-15"
	stsXMLNS   = "https://sts.amazonaws.com/doc/2011-06-15/"
)

// stsHandlers are the simulated STS operations.
var stsHandlers = map[string]func(*call) (any, error){
	"GetCallerIdentity": (*call).stsGetCallerIdentity,
	"AssumeRole":        (*call).stsAssumeRole,
}

// Identity is the principal an access key resolves to.
type Identity struct {
	AccessKeyID string
	// ARN is the caller ARN, e.g. arn:aws:iam::ACCOUNT:user/awssim or
	// arn:aws:sts::ACCOUNT:assumed-role/ROLE/SESSION.
	ARN    string
	UserID string
	// RoleARN is the role an AssumeRole key belongs to, "" for other keys.
	RoleARN string
	// SessionName is the AssumeRole session name, "" for other keys.
	SessionName string
}

// assumedKey is a temporary credential issued by AssumeRole.
type assumedKey struct {
	id      Identity
	token   string
	expires time.Time
	// wallExpires, when set (SetSessionLifetime), replaces expires: the
	// key expires then on the wall clock.
	wallExpires time.Time
}

// SetSessionLifetime makes AssumeRole issue credentials that expire d after
// they are issued on the wall clock, whatever DurationSeconds asks; 0
// restores DurationSeconds on the server clock. It is a test-only fault:
// AWS never issues a session shorter than 900 s ("DurationSeconds ...
// minimum value of 900 seconds (15 minutes)", AWS STS API Reference,
// AssumeRole), and a test cannot wait 15 minutes. The wall clock is used
// because the SDK's credential cache decides when to renew by it, whatever
// clock the simulated account runs on: so the SDK renews the session as it
// would against AWS, and a request signed with an expired one is refused
// with ExpiredTokenException, as AWS does.
func (s *Server) SetSessionLifetime(d time.Duration) { s.sessionLifetime.Store(int64(d)) }

// Identity returns the principal accessKeyID resolves to. Keys issued by
// AssumeRole resolve to their assumed role session; every other key is the
// account's IAM user "awssim".
func (s *Server) Identity(accessKeyID string) Identity {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k := s.keys[accessKeyID]; k != nil {
		return k.id
	}
	return s.defaultIdentity(accessKeyID)
}

func (s *Server) defaultIdentity(accessKeyID string) Identity {
	return Identity{
		AccessKeyID: accessKeyID,
		ARN:         "arn:aws:iam::" + s.account + ":user/awssim",
		UserID:      "AIDA" + hexID("user"+s.account, 17),
	}
}

// resolveIdentity maps the request's access key (and session token) to a
// principal; temporary keys need their session token and must not be
// expired.
func (s *Server) resolveIdentity(accessKeyID, token string) (Identity, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := s.keys[accessKeyID]
	if k == nil {
		return s.defaultIdentity(accessKeyID), nil
	}
	if token != k.token {
		return Identity{}, apiErr(ErrInvalidClientToken, "The security token included in the request is invalid.")
	}
	expired := !s.now().Before(k.expires)
	if !k.wallExpires.IsZero() {
		expired = !time.Now().Before(k.wallExpires)
	}
	if expired {
		return Identity{}, apiErr(ErrExpiredToken, "The security token included in the request is expired")
	}
	return k.id, nil
}

// hexID is a deterministic uppercase identifier of n characters.
func hexID(seed string, n int) string {
	h := sha256.Sum256([]byte(seed))
	return strings.ToUpper(hex.EncodeToString(h[:]))[:n]
}

func parseForm(body []byte) (url.Values, error) {
	v, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, fmt.Errorf("parse form body: %w", err)
	}
	return v, nil
}

type stsCallerIdentityResult struct {
	XMLName xml.Name `xml:"GetCallerIdentityResult"`
	Arn     string
	UserID  string `xml:"UserId"`
	Account string
}

func (c *call) stsGetCallerIdentity() (any, error) {
	if err := c.admit(""); err != nil {
		return nil, err
	}
	return stsCallerIdentityResult{Arn: c.identity.ARN, UserID: c.identity.UserID, Account: c.srv.account}, nil
}

type stsAssumeRoleResult struct {
	XMLName     xml.Name `xml:"AssumeRoleResult"`
	Credentials struct {
		AccessKeyID     string `xml:"AccessKeyId"`
		SecretAccessKey string
		SessionToken    string
		Expiration      string
	}
	AssumedRoleUser struct {
		AssumedRoleID string `xml:"AssumedRoleId"`
		Arn           string
	}
}

var (
	roleARNRE     = regexp.MustCompile(`^arn:aws:iam::(\d{12}):role/(?:[\w+=,.@-]+/)*([\w+=,.@-]{1,64})$`)
	sessionNameRE = regexp.MustCompile(`^[\w+=,.@-]{2,64}$`)
)

func (c *call) stsAssumeRole() (any, error) {
	roleARN := c.form.Get("RoleArn")
	if err := c.admit(roleARN); err != nil {
		return nil, err
	}
	m := roleARNRE.FindStringSubmatch(roleARN)
	if m == nil {
		return nil, apiErr(ErrValidation, fmt.Sprintf("%s is invalid", roleARN))
	}
	session := c.form.Get("RoleSessionName")
	if !sessionNameRE.MatchString(session) {
		return nil, apiErr(ErrValidation, "1 validation error detected: Value at 'roleSessionName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]*")
	}
	duration := time.Hour
	if d := c.form.Get("DurationSeconds"); d != "" {
		n, err := strconv.Atoi(d)
		if err != nil || n < 900 || n > 43200 {
			return nil, apiErr(ErrValidation, "1 validation error detected: Value at 'durationSeconds' failed to satisfy constraint: Member must have value between 900 and 43200")
		}
		duration = time.Duration(n) * time.Second
	}
	account, role := m[1], m[2]
	s := c.srv
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	seed := fmt.Sprintf("%s/%s/%s/%d", roleARN, session, now, s.nextID)
	roleID := "AROA" + hexID("role"+roleARN, 17)
	k := &assumedKey{
		id: Identity{
			AccessKeyID: "ASIA" + hexID("akid"+seed, 16),
			ARN:         fmt.Sprintf("arn:aws:sts::%s:assumed-role/%s/%s", account, role, session),
			UserID:      roleID + ":" + session,
			RoleARN:     roleARN,
			SessionName: session,
		},
		token:   "FwoGZXIvYXdzE" + hexID("token"+seed, 64),
		expires: now.Add(duration),
	}
	s.keys[k.id.AccessKeyID] = k
	var out stsAssumeRoleResult
	out.Credentials.AccessKeyID = k.id.AccessKeyID
	out.Credentials.SecretAccessKey = hexID("secret"+seed, 40)
	out.Credentials.SessionToken = k.token
	// The SDK checks expiry against the wall clock, not the simulated one, so
	// the expiry it is told is never earlier than wall-clock now + duration;
	// with a wall-clock lifetime it is exactly when the key expires.
	wireExpiry := k.expires
	if wall := time.Now().Add(duration); wall.After(wireExpiry) {
		wireExpiry = wall
	}
	if d := time.Duration(s.sessionLifetime.Load()); d > 0 {
		k.wallExpires = time.Now().Add(d)
		wireExpiry = k.wallExpires
	}
	layout := "2006-01-02T15:04:05Z"
	if !k.wallExpires.IsZero() {
		// A lifetime of a second or so needs the milliseconds (the
		// SDK reads fractional seconds).
		layout = "2006-01-02T15:04:05.000Z"
	}
	out.Credentials.Expiration = wireExpiry.UTC().Format(layout)
	out.AssumedRoleUser.AssumedRoleID = k.id.UserID
	out.AssumedRoleUser.Arn = k.id.ARN
	return out, nil
}
