package awssim

import "fmt"

// Capacity unit sizes (DynamoDB Developer Guide, "Read/write capacity
// mode"): one read unit is one strongly consistent read of up to 4 KB per
// second (two eventually consistent ones); one write unit writes up to 1 KB.
// Item sizes are rounded up to the next unit size, and every request
// consumes at least one unit.
const (
	readUnitBytes  = 4096
	writeUnitBytes = 1024
)

// readUnits is the read capacity a read of bytes consumes.
func readUnits(bytes int64, consistent bool) float64 {
	n := float64(max(1, (bytes+readUnitBytes-1)/readUnitBytes))
	if consistent {
		return n
	}
	return n / 2
}

// writeUnits is the write capacity a write of bytes consumes.
func writeUnits(bytes int64) float64 {
	return float64(max(1, (bytes+writeUnitBytes-1)/writeUnitBytes))
}

// Values of ReturnConsumedCapacity.
const (
	capacityNone    = "NONE"
	capacityTotal   = "TOTAL"
	capacityIndexes = "INDEXES"
)

// checkReturnCapacity validates a ReturnConsumedCapacity value.
func checkReturnCapacity(v string) error {
	switch v {
	case "", capacityNone, capacityTotal, capacityIndexes:
		return nil
	}
	return apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%s' at 'returnConsumedCapacity' failed to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]", v))
}

// Wire shapes of ConsumedCapacity.
type (
	ddbCapacityDetail struct {
		CapacityUnits float64
	}
	ddbConsumedCapacity struct {
		TableName     string
		CapacityUnits float64
		Table         *ddbCapacityDetail `json:",omitempty"`
	}
)

// consumed renders units consumed on table for the requested mode: nil for
// NONE, the total for TOTAL, and the total with the table's share for
// INDEXES (the simulator reads and writes no index). Like DynamoDB Local,
// it does not split the total into ReadCapacityUnits/WriteCapacityUnits.
func consumed(mode, table string, units float64) *ddbConsumedCapacity {
	if mode != capacityTotal && mode != capacityIndexes {
		return nil
	}
	cc := &ddbConsumedCapacity{TableName: table, CapacityUnits: units}
	if mode == capacityIndexes {
		cc.Table = &ddbCapacityDetail{CapacityUnits: units}
	}
	return cc
}
