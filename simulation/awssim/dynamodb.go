package awssim

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// dynamoHandlers are the simulated DynamoDB operations.
var dynamoHandlers = map[string]func(*call) (any, error){
	"ListTables":                (*call).ddbListTables,
	"DescribeTable":             (*call).ddbDescribeTable,
	"DescribeTimeToLive":        (*call).ddbDescribeTimeToLive,
	"DescribeContinuousBackups": (*call).ddbDescribeContinuousBackups,
	"DescribeLimits":            (*call).ddbDescribeLimits,
	"ListTagsOfResource":        (*call).ddbListTagsOfResource,
	"UpdateTable":               (*call).ddbUpdateTable,
	"UpdateTimeToLive":          (*call).ddbUpdateTimeToLive,
	"PutItem":                   (*call).ddbPutItem,
	"GetItem":                   (*call).ddbGetItem,
	"DeleteItem":                (*call).ddbDeleteItem,
	"BatchWriteItem":            (*call).ddbBatchWriteItem,
	"Scan":                      (*call).ddbScan,
}

// decodeJSON decodes an AWS JSON request body into in; an empty body is {}.
func (c *call) decodeJSON(in any) error {
	if len(c.body) == 0 {
		return nil
	}
	if err := json.Unmarshal(c.body, in); err != nil {
		return apiErr(ErrValidation, fmt.Sprintf("Unable to parse the %s request body", c.op))
	}
	return nil
}

// Wire shapes of DynamoDB (AWS JSON 1.0). Timestamps are epoch seconds.
type (
	ddbKeyElement struct {
		AttributeName string
		KeyType       string
	}
	ddbAttributeDefinition struct {
		AttributeName string
		AttributeType string
	}
	ddbThroughputDesc struct {
		LastIncreaseDateTime   *float64 `json:",omitempty"`
		LastDecreaseDateTime   *float64 `json:",omitempty"`
		NumberOfDecreasesToday int64
		ReadCapacityUnits      int64
		WriteCapacityUnits     int64
	}
	ddbOnDemand struct {
		MaxReadRequestUnits  int64
		MaxWriteRequestUnits int64
	}
	ddbBillingModeSummary struct {
		BillingMode                       string
		LastUpdateToPayPerRequestDateTime *float64 `json:",omitempty"`
	}
	ddbWarmDesc struct {
		ReadUnitsPerSecond  int64
		WriteUnitsPerSecond int64
		Status              string
	}
	ddbTableClassSummary struct {
		TableClass         string
		LastUpdateDateTime *float64 `json:",omitempty"`
	}
	ddbProjection struct {
		ProjectionType string
	}
	ddbGSIDescription struct {
		IndexName             string
		KeySchema             []ddbKeyElement
		Projection            ddbProjection
		IndexStatus           string
		Backfilling           *bool `json:",omitempty"`
		ProvisionedThroughput ddbThroughputDesc
		IndexSizeBytes        int64
		ItemCount             int64
		IndexArn              string
		OnDemandThroughput    *ddbOnDemand `json:",omitempty"`
		WarmThroughput        *ddbWarmDesc `json:",omitempty"`
	}
	ddbTableDescription struct {
		AttributeDefinitions      []ddbAttributeDefinition
		TableName                 string
		KeySchema                 []ddbKeyElement
		TableStatus               string
		CreationDateTime          float64
		ProvisionedThroughput     ddbThroughputDesc
		TableSizeBytes            int64
		ItemCount                 int64
		TableArn                  string
		TableId                   string
		BillingModeSummary        *ddbBillingModeSummary `json:",omitempty"`
		GlobalSecondaryIndexes    []ddbGSIDescription    `json:",omitempty"`
		TableClassSummary         *ddbTableClassSummary  `json:",omitempty"`
		DeletionProtectionEnabled bool
		OnDemandThroughput        *ddbOnDemand            `json:",omitempty"`
		WarmThroughput            *ddbWarmDesc            `json:",omitempty"`
		GlobalTableVersion        string                  `json:",omitempty"`
		Replicas                  []ddbReplicaDescription `json:",omitempty"`
		MultiRegionConsistency    string                  `json:",omitempty"`
	}
	ddbTag struct {
		Key   string
		Value string
	}
)

// epoch renders t as AWS JSON epoch seconds (millisecond precision); nil for
// the zero time.
func epoch(t time.Time) *float64 {
	if t.IsZero() {
		return nil
	}
	v := float64(t.UnixMilli()) / 1000
	return &v
}

// throughputDesc renders th as of now; on-demand capacity is 0/0.
func throughputDesc(th Throughput, onDemand bool, now time.Time) ddbThroughputDesc {
	d := ddbThroughputDesc{
		LastIncreaseDateTime:   epoch(th.LastIncreaseDateTime),
		LastDecreaseDateTime:   epoch(th.LastDecreaseDateTime),
		NumberOfDecreasesToday: decreasesToday(th, now),
	}
	if !onDemand {
		d.ReadCapacityUnits, d.WriteCapacityUnits = th.ReadCapacityUnits, th.WriteCapacityUnits
	}
	return d
}

// onDemandDesc renders o with AWS's -1 for unlimited; nil when nothing needs
// to be said (a provisioned table without caps).
func onDemandDesc(o OnDemandThroughput, onDemand bool) *ddbOnDemand {
	if !onDemand && o == (OnDemandThroughput{}) {
		return nil
	}
	unl := func(v int64) int64 {
		if v <= 0 {
			return -1
		}
		return v
	}
	return &ddbOnDemand{MaxReadRequestUnits: unl(o.MaxReadRequestUnits), MaxWriteRequestUnits: unl(o.MaxWriteRequestUnits)}
}

// onDemandWarm is the warm throughput of a new on-demand table or GSI
// (read, write units per second). Source: AWS, "Understanding DynamoDB warm
// throughput in different scenarios" and "DynamoDB on-demand capacity
// mode", Initial throughput: 12,000 read and 4,000 write request units.
var onDemandWarm = [2]int64{12000, 4000}

// warmDesc raises w to what the table or GSI has reached (its provisioned
// capacity, or the new on-demand values) and renders it; w is stored back
// so that the warm throughput never decreases (it grows with provisioned
// capacity and on-demand use and never falls: "Understanding DynamoDB warm
// throughput"). nil when w.Omit (an older API answer).
func warmDesc(w *WarmThroughput, th Throughput, onDemand bool) *ddbWarmDesc {
	if onDemand {
		w.ReadUnitsPerSecond = max(w.ReadUnitsPerSecond, onDemandWarm[0])
		w.WriteUnitsPerSecond = max(w.WriteUnitsPerSecond, onDemandWarm[1])
	} else {
		w.ReadUnitsPerSecond = max(w.ReadUnitsPerSecond, th.ReadCapacityUnits)
		w.WriteUnitsPerSecond = max(w.WriteUnitsPerSecond, th.WriteCapacityUnits)
	}
	if w.Omit {
		return nil
	}
	status := w.Status
	if status == "" {
		status = "ACTIVE"
	}
	return &ddbWarmDesc{ReadUnitsPerSecond: w.ReadUnitsPerSecond, WriteUnitsPerSecond: w.WriteUnitsPerSecond, Status: status}
}

// describeTable renders t in region as a TableDescription. s.mu must be
// held.
func (s *Server) describeTable(region string, t *Table) ddbTableDescription {
	now := s.now()
	arn := s.tableARN(region, t.Name)
	od := t.BillingMode == BillingPayPerRequest
	itemCount, sizeBytes := s.reportedCounts(region, t, now)
	d := ddbTableDescription{
		TableName:             t.Name,
		TableStatus:           t.Status,
		CreationDateTime:      *epoch(t.CreationDateTime),
		ProvisionedThroughput: throughputDesc(t.Throughput, od, now),
		TableSizeBytes:        sizeBytes,
		ItemCount:             itemCount,
		TableArn:              arn,
		TableId:               stableUUID(arn + t.CreationDateTime.String()),
		BillingModeSummary: &ddbBillingModeSummary{
			BillingMode:                       t.BillingMode,
			LastUpdateToPayPerRequestDateTime: epoch(t.LastUpdateToPayPerRequestDateTime),
		},
		TableClassSummary:  &ddbTableClassSummary{TableClass: t.TableClass, LastUpdateDateTime: epoch(lastClassUpdate(t))},
		OnDemandThroughput: onDemandDesc(t.OnDemand, od),
		WarmThroughput:     warmDesc(&t.Warm, t.Throughput, od),
	}
	if len(t.Replicas) > 0 || t.GlobalTableVersion != "" {
		d.GlobalTableVersion, d.Replicas = t.GlobalTableVersion, s.replicaDescs(t)
		d.MultiRegionConsistency = t.MultiRegionConsistency
	}
	for _, k := range t.KeySchema {
		d.KeySchema = append(d.KeySchema, ddbKeyElement(k))
	}
	for _, a := range t.AttributeDefinitions {
		d.AttributeDefinitions = append(d.AttributeDefinitions, ddbAttributeDefinition(a))
	}
	for i := range t.GSIs {
		g := &t.GSIs[i]
		status, backfilling := s.indexStatus(region, t, g, now)
		gd := ddbGSIDescription{
			IndexName:             g.IndexName,
			Projection:            ddbProjection{ProjectionType: g.ProjectionType},
			IndexStatus:           status,
			Backfilling:           backfilling,
			ProvisionedThroughput: throughputDesc(g.Throughput, od, now),
			IndexSizeBytes:        g.SizeBytes,
			ItemCount:             g.ItemCount,
			IndexArn:              arn + "/index/" + g.IndexName,
			OnDemandThroughput:    onDemandDesc(g.OnDemand, od),
			WarmThroughput:        warmDesc(&g.Warm, g.Throughput, od),
		}
		for _, k := range g.KeySchema {
			gd.KeySchema = append(gd.KeySchema, ddbKeyElement(k))
		}
		d.GlobalSecondaryIndexes = append(d.GlobalSecondaryIndexes, gd)
	}
	return d
}

// tableNotFound is DynamoDB's ResourceNotFoundException for a table.
func tableNotFound(name string) error {
	return apiErr(ErrResourceNotFound, "Requested resource not found: Table: "+name+" not found")
}

// table returns the table name of the call's region, or DynamoDB's
// ResourceNotFoundException. s.mu must be held.
func (c *call) table(name string) (*Table, error) {
	t := c.srv.region(c.region).tables[name]
	if t == nil {
		return nil, tableNotFound(name)
	}
	return t, nil
}

// validateTableName applies DynamoDB's TableName constraints.
func validateTableName(name string) error {
	if !tableNameRE.MatchString(name) {
		return apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%s' at 'tableName' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+ and length between 3 and 255", name))
	}
	return nil
}

func (c *call) ddbListTables() (any, error) {
	var in struct {
		ExclusiveStartTableName string
		Limit                   *int
	}
	if err := c.decodeJSON(&in); err != nil {
		return nil, err
	}
	if err := c.admit(c.srv.tableARN(c.region, "*")); err != nil {
		return nil, err
	}
	limit := 100
	if in.Limit != nil {
		if *in.Limit < 1 || *in.Limit > 100 {
			return nil, apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value between 1 and 100", *in.Limit))
		}
		limit = *in.Limit
	}
	names := c.srv.TableNames(c.region)
	start, _ := slices.BinarySearch(names, in.ExclusiveStartTableName)
	if start < len(names) && names[start] == in.ExclusiveStartTableName {
		start++
	}
	out := struct {
		TableNames             []string
		LastEvaluatedTableName string `json:",omitempty"`
	}{TableNames: []string{}}
	end := min(start+limit, len(names))
	out.TableNames = append(out.TableNames, names[start:end]...)
	if end < len(names) {
		out.LastEvaluatedTableName = names[end-1]
	}
	return out, nil
}

func (c *call) ddbDescribeTable() (any, error) {
	var in struct{ TableName string }
	if err := c.decodeJSON(&in); err != nil {
		return nil, err
	}
	if err := c.admitTable(in.TableName); err != nil {
		return nil, err
	}
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := c.table(in.TableName)
	if err != nil {
		return nil, err
	}
	s.settleTable(c.region, t, s.now())
	return struct{ Table ddbTableDescription }{s.describeTable(c.region, t)}, nil
}

func (c *call) ddbDescribeTimeToLive() (any, error) {
	var in struct{ TableName string }
	if err := c.decodeJSON(&in); err != nil {
		return nil, err
	}
	if err := c.admitTable(in.TableName); err != nil {
		return nil, err
	}
	t, ok := c.srv.Table(c.region, in.TableName)
	if !ok {
		return nil, tableNotFound(in.TableName)
	}
	type ttlDesc struct {
		TimeToLiveStatus string
		AttributeName    string `json:",omitempty"`
	}
	d := ttlDesc{TimeToLiveStatus: t.TTL.Status}
	if t.TTL.Status != TTLDisabled {
		d.AttributeName = t.TTL.AttributeName
	}
	return struct{ TimeToLiveDescription ttlDesc }{d}, nil
}

// tagsPageSize is how many tags ListTagsOfResource answers per page.
const tagsPageSize = 10

// parseTableARN splits arn:aws:dynamodb:REGION:ACCOUNT:table/NAME.
func parseTableARN(arn string) (region, account, table string, ok bool) {
	f := strings.SplitN(arn, ":", 6)
	if len(f) != 6 || f[0] != "arn" || f[2] != "dynamodb" {
		return "", "", "", false
	}
	name, found := strings.CutPrefix(f[5], "table/")
	if !found || strings.Contains(name, "/") || name == "" {
		return "", "", "", false
	}
	return f[3], f[4], name, true
}

func (c *call) ddbListTagsOfResource() (any, error) {
	var in struct {
		ResourceArn string
		NextToken   string
	}
	if err := c.decodeJSON(&in); err != nil {
		return nil, err
	}
	region, account, name, ok := parseTableARN(in.ResourceArn)
	if err := c.admit(in.ResourceArn, name); err != nil {
		return nil, err
	}
	if !ok {
		return nil, apiErr(ErrValidation, "Invalid TableArn")
	}
	t, found := c.srv.Table(region, name)
	if !found || region != c.region || account != c.srv.account {
		return nil, apiErr(ErrResourceNotFound, "Requested resource not found: ResourcArn: "+in.ResourceArn+" not found")
	}
	keys := slices.Sorted(maps.Keys(t.Tags))
	start := 0
	if in.NextToken != "" {
		after, err := base64.RawURLEncoding.DecodeString(in.NextToken)
		if err != nil {
			return nil, apiErr(ErrValidation, "Invalid NextToken")
		}
		start, _ = slices.BinarySearch(keys, string(after))
		if start < len(keys) && keys[start] == string(after) {
			start++
		}
	}
	out := struct {
		Tags      []ddbTag
		NextToken string `json:",omitempty"`
	}{Tags: []ddbTag{}}
	end := min(start+tagsPageSize, len(keys))
	for _, k := range keys[start:end] {
		out.Tags = append(out.Tags, ddbTag{Key: k, Value: t.Tags[k]})
	}
	if end < len(keys) {
		out.NextToken = base64.RawURLEncoding.EncodeToString([]byte(keys[end-1]))
	}
	return out, nil
}
