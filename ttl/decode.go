package ttl

import "time"

// Unit is a unit of epoch time.
type Unit uint8

// The units a TTL value may have been written in. DynamoDB TTL always reads
// UnitSeconds.
const (
	UnitSeconds Unit = iota
	UnitMilliseconds
	UnitMicroseconds
	UnitNanoseconds
)

// String returns "seconds", "milliseconds", "microseconds" or
// "nanoseconds".
func (u Unit) String() string {
	switch u {
	case UnitSeconds:
		return "seconds"
	case UnitMilliseconds:
		return "milliseconds"
	case UnitMicroseconds:
		return "microseconds"
	case UnitNanoseconds:
		return "nanoseconds"
	}
	return "unknown"
}

// pow10 is the number of decimal digits of the unit below one second.
func (u Unit) pow10() int { return 3 * int(u) }

// Decoded describes what DynamoDB TTL does with one raw Number value. It
// backs the "ttl decode VALUE" command; it deliberately has no String method
// so that a value is never formatted by accident.
type Decoded struct {
	// Class is what TTL does with an item holding the value.
	Class Class
	// Valid is false when the text is not a DynamoDB number; then every
	// other field but Class is zero.
	Valid bool
	// Seconds is the instant TTL resolves the value to (the value read as
	// epoch seconds, rounded down to the nanosecond). SecondsOK is false
	// when the instant is beyond what time.Time can hold (about ±1.4e11
	// years, beyond ±2^62 s); the value is then FarFuture, TooOld, or
	// Nanoseconds above about 4.6e18 (InLikelyUnit still holds its date).
	Seconds   time.Time
	SecondsOK bool
	// LikelyUnit is the unit the magnitude suggests: UnitMilliseconds,
	// UnitMicroseconds or UnitNanoseconds for those classes, UnitSeconds
	// otherwise.
	LikelyUnit Unit
	// InLikelyUnit is the instant the value denotes in LikelyUnit (the
	// writer's probable intent). It equals Seconds when LikelyUnit is
	// UnitSeconds.
	InLikelyUnit time.Time
}

// Decode describes what TTL does with the text of a Number value at time now.
func Decode(value string, now time.Time) Decoded {
	n, ok := parseNumber(value)
	if !ok {
		return Decoded{Class: InvalidNumber}
	}
	d := Decoded{Class: classifyParsed(n, now), Valid: true}
	d.Seconds, d.SecondsOK = n.timeIn(0)
	switch d.Class {
	case Milliseconds:
		d.LikelyUnit = UnitMilliseconds
	case Microseconds:
		d.LikelyUnit = UnitMicroseconds
	case Nanoseconds:
		d.LikelyUnit = UnitNanoseconds
	}
	if d.LikelyUnit == UnitSeconds {
		d.InLikelyUnit = d.Seconds
	} else {
		d.InLikelyUnit, _ = n.timeIn(d.LikelyUnit.pow10()) // at most 1e12 s: always fits
	}
	return d
}
