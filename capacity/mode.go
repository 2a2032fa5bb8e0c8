package capacity

import "fmt"

// Mode is a DynamoDB billing mode, spelled as in the DynamoDB API.
type Mode string

const (
	// Provisioned is provisioned capacity, billed per capacity-unit-hour.
	Provisioned Mode = "PROVISIONED"
	// OnDemand is on-demand capacity, billed per request unit.
	OnDemand Mode = "PAY_PER_REQUEST"
)

// Validate reports a mode other than Provisioned and OnDemand.
func (m Mode) Validate() error {
	if m != Provisioned && m != OnDemand {
		return fmt.Errorf("capacity: unknown billing mode %q (want %s or %s)", string(m), Provisioned, OnDemand)
	}
	return nil
}
