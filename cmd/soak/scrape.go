package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// format is one exposition format a scraper negotiates.
type format struct {
	name, accept string
	gzip         bool
}

// formats are taken in turn by each scraper.
var formats = []format{
	{"text", "text/plain;version=0.0.4", false},
	{"text+gzip", "text/plain;version=0.0.4", true},
	{"OpenMetrics", "application/openmetrics-text;version=1.0.0", false},
	{"OpenMetrics+gzip", "application/openmetrics-text;version=1.0.0", true},
	{"protobuf", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited", false},
}

// newClient returns a client that keeps its connections alive and leaves
// Accept-Encoding to the caller.
func newClient(timeout time.Duration) *http.Client {
	return &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 32}, Timeout: timeout}
}

// scrape gets url in format f, checks the answer is that format and returns
// the decoded body.
func scrape(ctx context.Context, c *http.Client, url string, f format) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", f.accept)
	if f.gzip {
		req.Header.Set("Accept-Encoding", "gzip")
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: reading the body: %w", f.name, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", f.name, resp.Status)
	}
	if f.gzip {
		if ce := resp.Header.Get("Content-Encoding"); ce != "gzip" {
			return nil, fmt.Errorf("%s: asked for gzip, got Content-Encoding %q", f.name, ce)
		}
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.name, err)
		}
		if body, err = io.ReadAll(zr); err != nil {
			return nil, fmt.Errorf("%s: gunzip: %w", f.name, err)
		}
	}
	ct := resp.Header.Get("Content-Type")
	want := strings.SplitN(f.accept, ";", 2)[0]
	if !strings.HasPrefix(ct, want) {
		return nil, fmt.Errorf("%s: Content-Type %q, want %s", f.name, ct, want)
	}
	if f.name != "protobuf" && !bytes.Contains(body, []byte("dynamodb_exporter_build_info")) {
		return nil, fmt.Errorf("%s: %d bytes without dynamodb_exporter_build_info", f.name, len(body))
	}
	if len(body) == 0 {
		return nil, fmt.Errorf("%s: empty body", f.name)
	}
	return body, nil
}

// scrapeStats are the scrapers' figures.
type scrapeStats struct {
	mu        sync.Mutex
	lat       []time.Duration
	errs      int
	firstErrs []string
	perFormat map[string]int
}

func (s *scrapeStats) add(f format, d time.Duration, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.errs++
		if len(s.firstErrs) < 5 {
			s.firstErrs = append(s.firstErrs, err.Error())
		}
		return
	}
	s.lat = append(s.lat, d)
	if s.perFormat == nil {
		s.perFormat = map[string]int{}
	}
	s.perFormat[f.name]++
}

// summary returns the count, median, p99 and max latency.
func (s *scrapeStats) summary() (n int, median, p99, maxLat time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ds := slices.Clone(s.lat)
	slices.Sort(ds)
	if len(ds) == 0 {
		return 0, 0, 0, 0
	}
	return len(ds), ds[len(ds)/2], ds[min(len(ds)-1, len(ds)*99/100)], ds[len(ds)-1]
}

// runScrapers starts n scrapers, each scraping url every interval in the
// next format of the list, until ctx ends; wait waits for them.
func runScrapers(ctx context.Context, url string, n int, interval time.Duration, st *scrapeStats) (wait func()) {
	var wg sync.WaitGroup
	c := newClient(30 * time.Second)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Spread the scrapers over the interval.
			select {
			case <-ctx.Done():
				return
			case <-time.After(interval * time.Duration(i) / time.Duration(n)):
			}
			t := time.NewTicker(interval)
			defer t.Stop()
			for k := i; ; k++ {
				f := formats[k%len(formats)]
				start := time.Now()
				_, err := scrape(ctx, c, url, f)
				if ctx.Err() != nil {
					return
				}
				st.add(f, time.Since(start), err)
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
			}
		}()
	}
	return func() {
		wg.Wait()
		c.CloseIdleConnections()
	}
}

// value returns the value of the first sample of the text exposition body
// named name with the given label matchers (`key="value"`), or an error.
func value(body []byte, name string, matchers ...string) (float64, error) {
	for line := range strings.SplitSeq(string(body), "\n") {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '{') {
			continue
		}
		if !containsAll(rest, matchers) {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		return strconv.ParseFloat(f[len(f)-1], 64)
	}
	return 0, errors.New("no sample " + name + "{" + strings.Join(matchers, ",") + "}")
}

// lines returns the sample lines of body for the family name.
func lines(body []byte, name string) []string {
	var out []string
	for line := range strings.SplitSeq(string(body), "\n") {
		if rest, ok := strings.CutPrefix(line, name); ok && rest != "" && (rest[0] == ' ' || rest[0] == '{') {
			out = append(out, line)
		}
	}
	return out
}

func containsAll(s string, subs []string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
