package ttl

import "strings"

// Class is what DynamoDB TTL does with one item. Its String form is a stable
// lowercase word meant for a Prometheus label value.
//
// The zero value is Live; use Classify to obtain a meaningful Class.
type Class uint8

// The classes, in their stable order (see Classes).
const (
	// Live: a Number of epoch seconds in the future. TTL will delete the
	// item after that time.
	Live Class = iota
	// Expired: a Number of epoch seconds at or before now but not more than
	// five years before now. TTL will delete the item (typically within a
	// few days, no SLA); it is still present.
	Expired
	// Missing: the item has no top-level attribute of that name. It never
	// expires, which may be intended.
	Missing
	// WrongType: the attribute is present but not a Number (String, Binary,
	// Bool, Map, List, a set, NULL). TTL ignores it.
	WrongType
	// Milliseconds: a Number greater than 1e12 and at most 1e15: epoch
	// milliseconds (years 2001 to 33658). Read as seconds it lies tens of
	// thousands of years ahead, so it never expires.
	Milliseconds
	// Microseconds: a Number greater than 1e15 and at most 1e18: epoch
	// microseconds. It never expires.
	Microseconds
	// Nanoseconds: a Number greater than 1e18 and at most 1e21: epoch
	// nanoseconds. It never expires.
	Nanoseconds
	// FarFuture: a Number of seconds in the future that is greater than
	// 1e11 (year 5138) and at most 1e12, or greater than 1e21 (no known
	// unit). Values between 1e11 and 1e12 could also be milliseconds of
	// 1973–2001; either way the item never expires in practice.
	FarFuture
	// TooOld: a Number more than five years before now (this includes zero
	// and negative numbers). TTL never deletes such items.
	TooOld
	// InvalidNumber: a Number whose text is not a DynamoDB number (not a
	// decimal, more than 38 significant digits, or out of DynamoDB's range).
	// Real tables cannot hold one; TTL could not use it.
	InvalidNumber

	// NumClasses is the number of classes; valid classes are below it.
	NumClasses = iota
)

var classNames = [NumClasses]string{
	Live:          "live",
	Expired:       "expired",
	Missing:       "missing",
	WrongType:     "wrong_type",
	Milliseconds:  "milliseconds",
	Microseconds:  "microseconds",
	Nanoseconds:   "nanoseconds",
	FarFuture:     "far_future",
	TooOld:        "too_old",
	InvalidNumber: "invalid_number",
}

var classDescriptions = [NumClasses]string{
	Live:          "a future time in epoch seconds: TTL deletes the item some time after it passes",
	Expired:       "a past time in epoch seconds within five years: TTL will delete the item (no SLA, usually within days)",
	Missing:       "no top-level attribute of that name: the item never expires",
	WrongType:     "not a Number: TTL ignores it and the item never expires",
	Milliseconds:  "a Number in epoch milliseconds: read as seconds it is tens of thousands of years ahead; the item never expires",
	Microseconds:  "a Number in epoch microseconds: read as seconds it is far in the future; the item never expires",
	Nanoseconds:   "a Number in epoch nanoseconds: read as seconds it is far in the future; the item never expires",
	FarFuture:     "a Number of seconds beyond the year 5138 (or of no known unit): the item never expires in practice",
	TooOld:        "a time more than five years in the past: TTL never deletes the item",
	InvalidNumber: "not a valid DynamoDB number: TTL cannot use it",
}

// Valid reports whether c is one of the defined classes.
func (c Class) Valid() bool { return c < NumClasses }

// String returns the stable lowercase label of c ("live", "wrong_type", ...)
// or "unknown" for an undefined value.
func (c Class) String() string {
	if !c.Valid() {
		return "unknown"
	}
	return classNames[c]
}

// Description is a fixed, data-free sentence saying what TTL does with an
// item of class c.
func (c Class) Description() string {
	if !c.Valid() {
		return "unknown class"
	}
	return classDescriptions[c]
}

// NeverExpires reports whether TTL will silently never delete an item of
// class c although the item has a TTL attribute: WrongType, Milliseconds,
// Microseconds, Nanoseconds, FarFuture, TooOld and InvalidNumber. Missing is
// not included: an item without the attribute may be meant to live forever
// and is reported separately.
func (c Class) NeverExpires() bool { return NeverExpiring.Has(c) }

// Classes returns every class in its stable order.
func Classes() []Class {
	out := make([]Class, NumClasses)
	for i := range out {
		out[i] = Class(i)
	}
	return out
}

// ParseClass returns the class whose String is name.
func ParseClass(name string) (Class, bool) {
	for i, n := range classNames {
		if n == name {
			return Class(i), true
		}
	}
	return 0, false
}

// ClassSet is a set of classes, for estimating e.g. "every never-expiring
// item" at once.
type ClassSet uint32

// NeverExpiring is the set of classes for which Class.NeverExpires is true.
const NeverExpiring = ClassSet(1<<WrongType | 1<<Milliseconds | 1<<Microseconds |
	1<<Nanoseconds | 1<<FarFuture | 1<<TooOld | 1<<InvalidNumber)

// SetOf returns the set holding the given classes; undefined classes are
// ignored.
func SetOf(classes ...Class) ClassSet {
	var s ClassSet
	for _, c := range classes {
		if c.Valid() {
			s |= 1 << c
		}
	}
	return s
}

// Has reports whether c is in s.
func (s ClassSet) Has(c Class) bool { return c.Valid() && s&(1<<c) != 0 }

// String joins the labels of the classes in s with "+" in stable order, e.g.
// "expired+too_old"; the empty set is "none".
func (s ClassSet) String() string {
	var parts []string
	for _, c := range Classes() {
		if s.Has(c) {
			parts = append(parts, c.String())
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "+")
}
