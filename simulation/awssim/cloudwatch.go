package awssim

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// cloudWatchHandlers are the simulated CloudWatch operations.
var cloudWatchHandlers = map[string]func(*call) (any, error){
	"GetMetricData": (*call).cwGetMetricData,
	"ListMetrics":   (*call).cwListMetrics,
}

// CloudWatch limits.
const (
	maxMetricDataQueries = 500
	defaultMaxDatapoints = 100800
	listMetricsPageSize  = 500
	recentlyActiveWindow = 3 * time.Hour
)

var metricIDRE = regexp.MustCompile(`^[a-z][a-zA-Z0-9_]*$`)

// Wire shapes of CloudWatch (RPC v2 CBOR).
type (
	cwDimension struct {
		Name  string `cbor:"Name"`
		Value string `cbor:"Value"`
	}
	cwMetric struct {
		Namespace  string        `cbor:"Namespace,omitempty"`
		MetricName string        `cbor:"MetricName,omitempty"`
		Dimensions []cwDimension `cbor:"Dimensions,omitempty"`
	}
	cwMetricStat struct {
		Metric cwMetric `cbor:"Metric"`
		Period int32    `cbor:"Period"`
		Stat   string   `cbor:"Stat"`
		Unit   string   `cbor:"Unit"`
	}
	cwQuery struct {
		ID         string        `cbor:"Id"`
		MetricStat *cwMetricStat `cbor:"MetricStat"`
		Expression string        `cbor:"Expression"`
		Label      string        `cbor:"Label"`
		ReturnData *bool         `cbor:"ReturnData"`
		Period     int32         `cbor:"Period"`
	}
	cwGetMetricDataInput struct {
		MetricDataQueries []cwQuery  `cbor:"MetricDataQueries"`
		StartTime         *time.Time `cbor:"StartTime"`
		EndTime           *time.Time `cbor:"EndTime"`
		NextToken         string     `cbor:"NextToken"`
		ScanBy            string     `cbor:"ScanBy"`
		MaxDatapoints     *int64     `cbor:"MaxDatapoints"`
	}
	cwMetricDataResult struct {
		ID         string      `cbor:"Id"`
		Label      string      `cbor:"Label"`
		Timestamps []time.Time `cbor:"Timestamps"`
		Values     []float64   `cbor:"Values"`
		StatusCode string      `cbor:"StatusCode"`
	}
	cwGetMetricDataOutput struct {
		MetricDataResults []cwMetricDataResult `cbor:"MetricDataResults"`
		NextToken         string               `cbor:"NextToken,omitempty"`
	}
	cwDimensionFilter struct {
		Name  string  `cbor:"Name"`
		Value *string `cbor:"Value"`
	}
	cwListMetricsInput struct {
		Namespace             string              `cbor:"Namespace"`
		MetricName            string              `cbor:"MetricName"`
		Dimensions            []cwDimensionFilter `cbor:"Dimensions"`
		NextToken             string              `cbor:"NextToken"`
		RecentlyActive        string              `cbor:"RecentlyActive"`
		IncludeLinkedAccounts bool                `cbor:"IncludeLinkedAccounts"`
	}
	cwListMetricsOutput struct {
		Metrics        []cwMetric `cbor:"Metrics"`
		NextToken      string     `cbor:"NextToken,omitempty"`
		OwningAccounts []string   `cbor:"OwningAccounts,omitempty"`
	}
)

func (m cwMetric) metric() Metric {
	out := Metric{Namespace: m.Namespace, Name: m.MetricName}
	for _, d := range m.Dimensions {
		out.Dimensions = append(out.Dimensions, Dimension(d))
	}
	return out
}

// queryTables lists the TableName dimensions the queries mention.
func queryTables(qs []cwQuery) []string {
	var out []string
	for _, q := range qs {
		if q.MetricStat == nil {
			continue
		}
		for _, d := range q.MetricStat.Metric.Dimensions {
			if d.Name == "TableName" && !slices.Contains(out, d.Value) {
				out = append(out, d.Value)
			}
		}
	}
	return out
}

func (c *call) cwGetMetricData() (any, error) {
	var in cwGetMetricDataInput
	if err := c.decodeCBOR(&in); err != nil {
		return nil, err
	}
	c.rec.Queries = len(in.MetricDataQueries)
	if err := c.admit("", queryTables(in.MetricDataQueries)...); err != nil {
		return nil, err
	}
	if err := validateGetMetricData(&in); err != nil {
		return nil, err
	}
	c.srv.settleRegionNow(c.region)
	offset, err := decodeOffsetToken(in.NextToken)
	if err != nil {
		return nil, err
	}
	maxDP := int64(defaultMaxDatapoints)
	if in.MaxDatapoints != nil {
		maxDP = *in.MaxDatapoints
	}
	if page := c.srv.pageDatapoints.Load(); page > 0 && page < maxDP {
		maxDP = page
	}
	start, end := in.StartTime.UTC(), in.EndTime.UTC()
	if now := c.srv.now(); end.After(now) {
		end = now
	}
	descending := in.ScanBy != "TimestampAscending"
	sources := c.srv.allSources()

	out := cwGetMetricDataOutput{MetricDataResults: []cwMetricDataResult{}}
	skip, budget := offset, maxDP
	more := false
	for _, q := range in.MetricDataQueries {
		if q.ReturnData != nil && !*q.ReturnData {
			continue
		}
		ms := q.MetricStat
		period := time.Duration(ms.Period) * time.Second
		buckets := aggregate(sources, c.region, ms.Metric.metric(), start, end, period)
		buckets = c.srv.fillIdle(c.region, ms.Metric.metric(), buckets, start, end, period)
		ts, vals := evaluate(buckets, ms.Stat, descending)
		label := q.Label
		if label == "" {
			label = ms.Metric.MetricName
		}
		res := cwMetricDataResult{ID: q.ID, Label: label, Timestamps: []time.Time{}, Values: []float64{}, StatusCode: "Complete"}
		n := int64(len(vals))
		from := min(skip, n)
		skip -= from
		to := from + min(budget, n-from)
		budget -= to - from
		res.Timestamps = append(res.Timestamps, ts[from:to]...)
		res.Values = append(res.Values, vals[from:to]...)
		if to < n {
			res.StatusCode = "PartialData"
			more = true
		}
		out.MetricDataResults = append(out.MetricDataResults, res)
	}
	if more {
		out.NextToken = encodeOffsetToken(offset + maxDP)
	}
	var points int64
	for _, r := range out.MetricDataResults {
		points += int64(len(r.Values))
	}
	kind := 1
	if c.srv.now().Sub(start) > DatapointQuotaAge {
		kind = 0
	}
	if !c.srv.dps.take(c.region, kind, points, time.Now()) {
		return nil, apiErr(ErrThrottling, "Rate exceeded")
	}
	return out, nil
}

// validateGetMetricData applies CloudWatch's request validation.
func validateGetMetricData(in *cwGetMetricDataInput) error {
	n := len(in.MetricDataQueries)
	if n == 0 {
		return apiErr(ErrValidation, "1 validation error detected: Value null at 'metricDataQueries' failed to satisfy constraint: Member must not be null")
	}
	if n > maxMetricDataQueries {
		return apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '[...%d queries]' at 'metricDataQueries' failed to satisfy constraint: Member must have length less than or equal to %d", n, maxMetricDataQueries))
	}
	if in.StartTime == nil || in.EndTime == nil {
		return apiErr(ErrValidation, "1 validation error detected: StartTime and EndTime must not be null")
	}
	if !in.EndTime.After(*in.StartTime) {
		return apiErr(ErrInvalidParameter, "The parameter StartTime must be less than the parameter EndTime.")
	}
	if in.ScanBy != "" && in.ScanBy != "TimestampDescending" && in.ScanBy != "TimestampAscending" {
		return apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%s' at 'scanBy' failed to satisfy constraint: Member must satisfy enum value set: [TimestampDescending, TimestampAscending]", in.ScanBy))
	}
	if in.MaxDatapoints != nil && *in.MaxDatapoints < 1 {
		return apiErr(ErrInvalidParameter, "The parameter MaxDatapoints must be greater than 0.")
	}
	seen := make(map[string]bool, n)
	for i, q := range in.MetricDataQueries {
		field := fmt.Sprintf("MetricDataQueries.member.%d", i+1)
		if !metricIDRE.MatchString(q.ID) {
			return apiErr(ErrValidation, fmt.Sprintf("The value %s for parameter %s.Id is invalid: it must match ^[a-z][a-zA-Z0-9_]*$.", q.ID, field))
		}
		if seen[q.ID] {
			return apiErr(ErrValidation, fmt.Sprintf("The value %s for parameter %s.Id is not unique.", q.ID, field))
		}
		seen[q.ID] = true
		if q.Expression != "" {
			return apiErr(ErrInvalidParameter, fmt.Sprintf("awssim does not support metric math: %s.Expression (Id %s) cannot be evaluated by the simulator; use MetricStat queries.", field, q.ID))
		}
		if q.MetricStat == nil {
			return apiErr(ErrInvalidParameter, fmt.Sprintf("The parameter %s must contain either a MetricStat or an Expression.", field))
		}
		ms := q.MetricStat
		if ms.Metric.Namespace == "" || ms.Metric.MetricName == "" {
			return apiErr(ErrInvalidParameter, fmt.Sprintf("The parameter %s.MetricStat.Metric must have a Namespace and a MetricName.", field))
		}
		if ms.Period < 60 || ms.Period%60 != 0 {
			return apiErr(ErrInvalidParameter, fmt.Sprintf("The parameter %s.MetricStat.Period must be a multiple of 60 (the simulator stores 1-minute resolution only).", field))
		}
		if !supportedStat(ms.Stat) {
			return apiErr(ErrInvalidParameter, fmt.Sprintf("The parameter %s.MetricStat.Stat '%s' is not supported by the simulator (Sum, Average, SampleCount, Minimum, Maximum, pNN).", field, ms.Stat))
		}
	}
	return nil
}

// decodeOffsetToken reads a GetMetricData NextToken ("" is offset 0).
func decodeOffsetToken(tok string) (int64, error) {
	if tok == "" {
		return 0, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err == nil {
		if s, ok := strings.CutPrefix(string(raw), "gmd:"); ok {
			if n, perr := strconv.ParseInt(s, 10, 64); perr == nil && n > 0 {
				return n, nil
			}
		}
	}
	return 0, apiErr(ErrInvalidNextToken, "The service returned an invalid token.")
}

func encodeOffsetToken(n int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte("gmd:" + strconv.FormatInt(n, 10)))
}

func (c *call) cwListMetrics() (any, error) {
	var in cwListMetricsInput
	if err := c.decodeCBOR(&in); err != nil {
		return nil, err
	}
	var tables []string
	for _, f := range in.Dimensions {
		if f.Name == "TableName" && f.Value != nil {
			tables = append(tables, *f.Value)
		}
	}
	if err := c.admit("", tables...); err != nil {
		return nil, err
	}
	c.srv.settleRegionNow(c.region)
	if in.RecentlyActive != "" && in.RecentlyActive != "PT3H" {
		return nil, apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%s' at 'recentlyActive' failed to satisfy constraint: Member must satisfy enum value set: [PT3H]", in.RecentlyActive))
	}
	if len(in.Dimensions) > 10 {
		return nil, apiErr(ErrValidation, "1 validation error detected: Value at 'dimensions' failed to satisfy constraint: Member must have length less than or equal to 10")
	}
	now := c.srv.now()
	sources := c.srv.allSources()
	byKey := map[string]Metric{}
	for _, src := range sources {
		for _, m := range src.ListMetrics(c.region) {
			if matchesListFilter(m, &in) {
				byKey[m.Key()] = m.canonical()
			}
		}
	}
	// A metric is listed once it has a datapoint older than the listing
	// delay (SetListMetricsDelay): new metrics show up late.
	delay := time.Duration(c.srv.listDelay.Load())
	var keys []string
	for k, m := range byKey {
		if in.RecentlyActive != "" && !hasDataIn(sources, c.region, m, now.Add(-recentlyActiveWindow), now.Add(-delay)) {
			continue
		}
		if in.RecentlyActive == "" && delay > 0 && !hasDataIn(sources, c.region, m, now.Add(-listedFor), now.Add(-delay)) {
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	page, next, err := pageAfter(keys, in.NextToken, listMetricsPageSize)
	if err != nil {
		return nil, apiErr(ErrInvalidNextToken, "The service returned an invalid token.")
	}
	out := cwListMetricsOutput{Metrics: []cwMetric{}, NextToken: next}
	for _, k := range page {
		m := byKey[k]
		wm := cwMetric{Namespace: m.Namespace, MetricName: m.Name, Dimensions: []cwDimension{}}
		for _, d := range m.Dimensions {
			wm.Dimensions = append(wm.Dimensions, cwDimension(d))
		}
		out.Metrics = append(out.Metrics, wm)
		if in.IncludeLinkedAccounts {
			out.OwningAccounts = append(out.OwningAccounts, c.srv.account)
		}
	}
	return out, nil
}

// listedFor is how long a metric without new datapoints stays in
// ListMetrics without RecentlyActive: two weeks ("Metrics that have not had
// any new data points in the past two weeks do not appear", CloudWatch API
// reference, ListMetrics).
const listedFor = 14 * 24 * time.Hour

// SetListMetricsDelay makes ListMetrics list a metric only once it has a
// datapoint at least d old, as CloudWatch does with new metrics: "it can
// take up to fifteen minutes for a new metric to appear" (CloudWatch API
// reference, ListMetrics). 0 (the default) lists a metric as soon as it has
// a datapoint. GetMetricData answers every datapoint at once regardless.
func (s *Server) SetListMetricsDelay(d time.Duration) { s.listDelay.Store(int64(d)) }

// SetGetMetricDataPageSize makes GetMetricData answer at most n datapoints
// per call, whatever MaxDatapoints asks: the rest follows through
// NextToken, the results cut short answering StatusCode PartialData. "If
// there are more data points ... NextToken ... PartialData" (CloudWatch API
// reference, GetMetricData and MetricDataResult.StatusCode); the page size
// is the service's choice. 0 (the default) removes the cap.
func (s *Server) SetGetMetricDataPageSize(n int) { s.pageDatapoints.Store(int64(n)) }

// matchesListFilter applies ListMetrics' Namespace, MetricName and
// dimension filters (a metric matches when it has every filtered dimension,
// with the given value when one is given).
func matchesListFilter(m Metric, in *cwListMetricsInput) bool {
	if (in.Namespace != "" && m.Namespace != in.Namespace) || (in.MetricName != "" && m.Name != in.MetricName) {
		return false
	}
	for _, f := range in.Dimensions {
		found := false
		for _, d := range m.Dimensions {
			if d.Name == f.Name && (f.Value == nil || *f.Value == d.Value) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// ActivityReporter is an optional capability of a MetricSource: telling
// whether a metric has a datapoint in [start, end) without building the
// datapoints. ListMetrics with RecentlyActive uses it when a source has it.
type ActivityReporter interface {
	HasData(region string, m Metric, start, end time.Time) bool
}

// hasDataIn reports whether any source has a datapoint of m in [start, end).
func hasDataIn(sources []MetricSource, region string, m Metric, start, end time.Time) bool {
	for _, src := range sources {
		if ar, ok := src.(ActivityReporter); ok {
			if ar.HasData(region, m, start, end) {
				return true
			}
			continue
		}
		if len(src.Datapoints(region, m, start, end)) > 0 {
			return true
		}
	}
	return false
}
