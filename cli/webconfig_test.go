package cli

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness/harnesstest"
)

// selfSignedCert writes a fresh ECDSA key and a certificate for 127.0.0.1
// to dir and returns the file names and the parsed certificate.
func selfSignedCert(t *testing.T, dir string) (certFile, keyFile string, cert *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "dynamodb_exporter test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, cert
}

// TestWebConfigTLSAndBasicAuth serves the exporter through the serve
// command's code path with --web.config.file set to TLS (a certificate
// generated here for 127.0.0.1) and basic auth, against a simulated
// account, and checks over real HTTPS every page the exporter serves (the
// metrics and the landing page; any other path is a 404): the right
// password is served; a wrong password, a wrong user and none are refused
// with 401 and nothing of the page; plain HTTP to the port gets no page;
// a client that does not trust the certificate fails the handshake.
func TestWebConfigTLSAndBasicAuth(t *testing.T) {
	const user, password = "prometheus", "correct horse battery staple"
	dir := t.TempDir()
	certFile, keyFile, cert := selfSignedCert(t, dir)
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	webCfg := filepath.Join(dir, "web.yml")
	if err := os.WriteFile(webCfg, []byte("tls_server_config:\n  cert_file: "+certFile+"\n  key_file: "+keyFile+
		"\nbasic_auth_users:\n  "+user+": "+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	clk := clock.NewManual(time.Date(2026, 11, 20, 12, 0, 30, 0, time.UTC))
	a := harnesstest.Account(t, harnesstest.Scenario(t, "healthy"), clk)
	cfg, awsOpts := harnesstest.Config(t, a, harness.DemoCollectors), a.AWS()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	done := make(chan error, 1)
	var logs testtools.SyncBuffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	go func() {
		done <- serve(ctx, cfg, exporter.Options{Logger: logger, AWS: awsOpts, Clock: clk,
			TTLPace: func(context.Context, time.Duration) error { return nil }},
			webFlags{ListenAddresses: []string{"127.0.0.1:0"}, TelemetryPath: "/metrics", ConfigFile: webCfg}, logger,
			func(a []string) { addrc <- a[0] })
	}()
	var addr string
	select {
	case addr = <-addrc:
	case err := <-done:
		t.Fatalf("serve stopped early: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("serve did not start listening")
	}
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve returned %v on shutdown", err)
		}
	}()

	pool := x509.NewCertPool()
	pool.AddCert(cert)
	trusting := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	get := func(c *http.Client, url, u, p string) (*http.Response, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if u != "" {
			req.SetBasicAuth(u, p)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}

	// The metrics page waits for the first collection to show tables.
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, body := get(trusting, "https://"+addr+"/metrics", user, password)
		if strings.Contains(body, `dynamodb_table_info{account="demo"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics never showed the simulated table:\n%.2000s", body)
		}
		time.Sleep(100 * time.Millisecond)
	}

	pages := []struct {
		path, content string // content only the page itself holds
	}{
		{"/metrics", `dynamodb_table_info{account="demo"`},
		{"/", "DynamoDB Exporter"},
	}
	for _, pg := range pages {
		url := "https://" + addr + pg.path
		resp, body := get(trusting, url, user, password)
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, pg.content) {
			t.Errorf("%s with the right password: status %d, holds %q: %v", pg.path, resp.StatusCode, pg.content, strings.Contains(body, pg.content))
		}
		if resp.TLS == nil || !resp.TLS.PeerCertificates[0].Equal(cert) {
			t.Errorf("%s was not served over TLS with the generated certificate", pg.path)
		}
		for _, c := range []struct{ name, u, p string }{
			{"no credentials", "", ""},
			{"wrong password", user, password + "x"},
			{"wrong user", "admin", password},
			{"empty password", user, ""},
		} {
			resp, body := get(trusting, url, c.u, c.p)
			if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" || strings.Contains(body, pg.content) {
				t.Errorf("%s, %s: status %d (WWW-Authenticate %q), want 401 without the page", pg.path, c.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
			}
		}
		// Plain HTTP to the TLS port: Go's TLS server answers 400 and
		// closes; no page in any case.
		plain := &http.Client{Timeout: 10 * time.Second}
		if resp, err := plain.Get("http://" + user + ":" + password + "@" + addr + pg.path); err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK || strings.Contains(string(b), pg.content) {
				t.Errorf("%s over plain HTTP: status %d, served the page", pg.path, resp.StatusCode)
			}
		}
		// A client without the certificate in its roots refuses the server.
		if _, err := (&http.Client{Timeout: 10 * time.Second}).Get(url); err == nil || !strings.Contains(err.Error(), "certificate") {
			t.Errorf("%s: a client not trusting the certificate got %v, want a certificate error", pg.path, err)
		}
	}
	// The refused handshakes are logged by the exporter's logger, in its
	// format, not by the standard library's to stderr.
	if !strings.Contains(logs.String(), `"level":"WARN","msg":"http: TLS handshake error from 127.0.0.1:`) {
		t.Errorf("the exporter's log lacks the refused TLS handshakes:\n%s", logs.String())
	}
	if strings.Contains(logs.String(), password) {
		t.Error("the log holds the basic-auth password")
	}
	// Every other path: refused without credentials, not found with them.
	if resp, _ := get(trusting, "https://"+addr+"/debug/pprof/", "", ""); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("/debug/pprof/ without credentials: status %d, want 401", resp.StatusCode)
	}
	if resp, _ := get(trusting, "https://"+addr+"/debug/pprof/", user, password); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/debug/pprof/ with credentials: status %d, want 404 (the exporter serves no debug pages)", resp.StatusCode)
	}
}
