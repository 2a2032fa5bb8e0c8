package ttl

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Magnitude thresholds, in the value as DynamoDB reads it (epoch seconds).
// All comparisons are exact decimal comparisons and strict ("greater than"):
//
//	value <= 1e11        seconds (Live when in the future; 1e11 is year 5138)
//	1e11 < value <= 1e12 FarFuture (seconds of year 5138–33658, or ms of 1973–2001)
//	1e12 < value <= 1e15 Milliseconds (2001-09-09 onwards when read as ms)
//	1e15 < value <= 1e18 Microseconds
//	1e18 < value <= 1e21 Nanoseconds
//	1e21 < value         FarFuture (no known unit)
//
// These bands apply only to values in the future; a value at or before now is
// Expired or TooOld whatever its size.
const (
	farFutureSecondsPow10 = 11
	millisecondsPow10     = 12
	microsecondsPow10     = 15
	nanosecondsPow10      = 18
	beyondNanosPow10      = 21
)

// TooOldAfter is how far in the past a TTL value may be and still be deleted.
// DynamoDB does not delete items whose TTL is more than five years in the
// past; the boundary is taken as five calendar years (now.AddDate(-5, 0, 0))
// and a value exactly on it is still Expired.
const TooOldAfter = 5 // years

// Classify tells what TTL does with item, given the name of the table's TTL
// attribute. Only a top-level attribute counts; an attribute of that name
// nested in a map or list is ignored by DynamoDB, and so here. It is pure and
// safe for concurrent use.
func Classify(item map[string]types.AttributeValue, attribute string, now time.Time) Class {
	av, ok := item[attribute]
	if !ok {
		return Missing
	}
	return ClassifyValue(av, now)
}

// ClassifyValue classifies the value of the TTL attribute; nil (no value)
// is Missing.
func ClassifyValue(av types.AttributeValue, now time.Time) Class {
	switch v := av.(type) {
	case nil:
		return Missing
	case *types.AttributeValueMemberN:
		if v == nil {
			return Missing
		}
		return ClassifyNumber(v.Value, now)
	default:
		return WrongType
	}
}

// ClassifyNumber classifies the text of a Number attribute value, such as
// "1790812800" or "1.7908128E9".
func ClassifyNumber(value string, now time.Time) Class {
	n, ok := parseNumber(value)
	if !ok {
		return InvalidNumber
	}
	return classifyParsed(n, now)
}

func classifyParsed(n number, now time.Time) Class {
	if n.cmpTime(now) <= 0 {
		if n.cmpTime(now.AddDate(-TooOldAfter, 0, 0)) < 0 {
			return TooOld
		}
		return Expired
	}
	switch {
	case n.greaterThanPow10(beyondNanosPow10):
		return FarFuture
	case n.greaterThanPow10(nanosecondsPow10):
		return Nanoseconds
	case n.greaterThanPow10(microsecondsPow10):
		return Microseconds
	case n.greaterThanPow10(millisecondsPow10):
		return Milliseconds
	case n.greaterThanPow10(farFutureSecondsPow10):
		return FarFuture
	default:
		return Live
	}
}
