package awssim

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Scan limits (DynamoDB API reference, Scan).
const (
	// scanPageBytes is the most data one Scan page evaluates: evaluation
	// stops after the item that brings the page to 1 MB or more.
	scanPageBytes = 1 << 20
	// maxTotalSegments is the largest TotalSegments of a parallel scan.
	maxTotalSegments = 1_000_000
)

// Values of Select.
const (
	selectAll       = "ALL_ATTRIBUTES"
	selectProjected = "ALL_PROJECTED_ATTRIBUTES"
	selectSpecific  = "SPECIFIC_ATTRIBUTES"
	selectCount     = "COUNT"
)

// ddbScanInput is the Scan request.
type ddbScanInput struct {
	TableName              string
	IndexName              *string
	Segment                *int64
	TotalSegments          *int64
	Limit                  *int64
	ExclusiveStartKey      item
	ConsistentRead         *bool
	Select                 string
	ReturnConsumedCapacity string
	FilterExpression       *string
	ScanFilter             json.RawMessage
	ConditionalOperator    string
	readExpressions
}

// ddbScanOutput is the Scan answer.
type ddbScanOutput struct {
	Items            *[]item `json:",omitempty"`
	Count            int
	ScannedCount     int
	LastEvaluatedKey item                 `json:",omitempty"`
	ConsumedCapacity *ddbConsumedCapacity `json:",omitempty"`
}

// checkScanParams applies Scan's request validation that needs no table.
func checkScanParams(in *ddbScanInput) error {
	if in.Segment != nil && *in.Segment < 0 {
		return apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%d' at 'segment' failed to satisfy constraint: Member must have value greater than or equal to 0", *in.Segment))
	}
	if in.Segment != nil && *in.Segment >= maxTotalSegments {
		return apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%d' at 'segment' failed to satisfy constraint: Member must have value less than or equal to %d", *in.Segment, maxTotalSegments-1))
	}
	if ts := in.TotalSegments; ts != nil && (*ts < 1 || *ts > maxTotalSegments) {
		bound := "greater than or equal to 1"
		if *ts > maxTotalSegments {
			bound = fmt.Sprintf("less than or equal to %d", maxTotalSegments)
		}
		return apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%d' at 'totalSegments' failed to satisfy constraint: Member must have value %s", *ts, bound))
	}
	if in.Limit != nil && *in.Limit < 1 {
		return apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%d' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1", *in.Limit))
	}
	switch in.Select {
	case "", selectAll, selectProjected, selectSpecific, selectCount:
	default:
		return apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%s' at 'select' failed to satisfy constraint: Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]", in.Select))
	}
	if err := checkReturnCapacity(in.ReturnConsumedCapacity); err != nil {
		return err
	}
	switch {
	case in.Segment != nil && in.TotalSegments == nil:
		return apiErr(ErrValidation, "The TotalSegments parameter is required but was not present in the request when Segment parameter is present")
	case in.Segment == nil && in.TotalSegments != nil:
		return apiErr(ErrValidation, "The Segment parameter is required but was not present in the request when parameter TotalSegments is present")
	case in.Segment != nil && *in.Segment >= *in.TotalSegments:
		return apiErr(ErrValidation, fmt.Sprintf("The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: %d is not less than TotalSegments: %d", *in.Segment, *in.TotalSegments))
	}
	if in.FilterExpression != nil || len(in.ScanFilter) > 0 || in.ConditionalOperator != "" {
		return apiErr(ErrValidation, "awssim: Scan filters (FilterExpression, ScanFilter) are not simulated")
	}
	projParam := ""
	switch {
	case in.ProjectionExpression != nil:
		projParam = "ProjectionExpression"
	case in.AttributesToGet != nil:
		projParam = "AttributesToGet"
	}
	switch in.Select {
	case selectAll:
		if projParam != "" {
			return apiErr(ErrValidation, "Cannot specify the "+projParam+" when choosing to get ALL_ATTRIBUTES")
		}
	case selectCount:
		if projParam != "" {
			return apiErr(ErrValidation, "Cannot specify the "+projParam+" when choosing to get only the Count")
		}
	case selectSpecific:
		if projParam == "" {
			return apiErr(ErrValidation, "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES")
		}
	case selectProjected:
		if in.IndexName == nil {
			return apiErr(ErrValidation, "ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName")
		}
	}
	return nil
}

func (c *call) ddbScan() (any, error) {
	var in ddbScanInput
	if err := c.decodeJSON(&in); err != nil {
		return nil, err
	}
	if err := c.admitTable(in.TableName); err != nil {
		return nil, err
	}
	if err := checkScanParams(&in); err != nil {
		return nil, err
	}
	proj, err := in.projection()
	if err != nil {
		return nil, err
	}
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ti, _, err := c.openTable(in.TableName, false)
	if err != nil {
		return nil, err
	}
	if in.IndexName != nil {
		if findGSI(t, *in.IndexName) == nil {
			return nil, apiErr(ErrValidation, "The table does not have the specified index: "+*in.IndexName)
		}
		return nil, apiErr(ErrValidation, "awssim: Scan of an index is not simulated")
	}
	ks := schemaOf(t)
	seg, total := 0, 1
	if in.TotalSegments != nil {
		seg, total = int(*in.Segment), int(*in.TotalSegments)
	}
	var order []*itemEntry
	if ti != nil {
		order = ti.sorted()
	}
	// The segment is a contiguous run of the scan order.
	lo := sort.Search(len(order), func(i int) bool { return segmentOf(order[i].key.hash, total) >= seg })
	hi := sort.Search(len(order), func(i int) bool { return segmentOf(order[i].key.hash, total) > seg })
	start := lo
	if in.ExclusiveStartKey != nil {
		key, err := ks.checkKey(in.ExclusiveStartKey, true)
		if err != nil {
			return nil, err
		}
		pk := ks.keyOf(key)
		if total > 1 && segmentOf(pk.hash, total) != seg {
			return nil, apiErr(ErrValidation, fmt.Sprintf("The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: %d Segment: %d", total, seg))
		}
		start = lo + sort.Search(hi-lo, func(i int) bool { return compareKeys(order[lo+i].key, pk) > 0 })
	}
	limit := int(^uint(0) >> 1)
	if in.Limit != nil && *in.Limit < int64(limit) {
		limit = int(*in.Limit)
	}

	out := ddbScanOutput{}
	var items []item
	var evaluated int64
	for i := start; i < hi; i++ {
		e := order[i]
		out.ScannedCount++
		evaluated += e.size
		if in.Select != selectCount {
			items = append(items, proj.apply(e.item))
		}
		if out.ScannedCount >= limit || evaluated >= scanPageBytes {
			out.LastEvaluatedKey = ks.keyItem(e.item)
			break
		}
	}
	out.Count = out.ScannedCount // no filter: every evaluated item matches
	if in.Select != selectCount {
		if items == nil {
			items = []item{}
		}
		out.Items = &items
	}
	// Scan is charged for the data it evaluated, not what it returned.
	consistent := in.ConsistentRead != nil && *in.ConsistentRead
	c.rec.ReadUnits = readUnits(evaluated, consistent)
	out.ConsumedCapacity = consumed(in.ReturnConsumedCapacity, t.Name, c.rec.ReadUnits)
	return out, nil
}
