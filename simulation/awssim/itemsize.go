package awssim

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Item size accounting, following "DynamoDB item sizes and formats" in the
// DynamoDB Developer Guide:
//
//   - String: UTF-8 bytes; Binary: raw bytes; Boolean and Null: 1 byte.
//   - Number: about 1 byte per two significant digits plus 1 byte (leading
//     and trailing zeros do not count); the simulator uses exactly
//     ceil(digits/2)+1, and 1 byte for zero.
//   - List and Map: 3 bytes of overhead plus the nested elements, each of
//     which costs 1 more byte; a Map element also counts its name.
//   - Sets: the sum of their elements' sizes.
//
// An item is the sum over its attributes of the UTF-8 length of the name
// plus the size of the value. The 100 bytes of per-item indexing overhead
// that storage billing adds are not included.
const (
	containerOverhead = 3
	elementOverhead   = 1
	// maxItemSize is DynamoDB's item size limit (400 KB).
	maxItemSize = 400 * 1024
)

// valueSize is the size of v in bytes, without any attribute name.
func valueSize(v attrValue) int64 {
	switch v.kind {
	case kindS:
		return int64(len(v.str))
	case kindN:
		return numberTextSize(v.str)
	case kindB:
		return int64(len(v.bin))
	case kindBOOL, kindNULL:
		return 1
	case kindM:
		n := int64(containerOverhead)
		for k, e := range v.m {
			n += int64(len(k)) + valueSize(e) + elementOverhead
		}
		return n
	case kindL:
		n := int64(containerOverhead)
		for _, e := range v.l {
			n += valueSize(e) + elementOverhead
		}
		return n
	case kindSS:
		var n int64
		for _, s := range v.strs {
			n += int64(len(s))
		}
		return n
	case kindNS:
		var n int64
		for _, s := range v.strs {
			n += numberTextSize(s)
		}
		return n
	case kindBS:
		var n int64
		for _, b := range v.bins {
			n += int64(len(b))
		}
		return n
	}
	return 0
}

// numberTextSize is the size of a Number given as text; text that is not a
// number (never stored) counts its length.
func numberTextSize(s string) int64 {
	n, err := parseDecNumber(s)
	if err != nil {
		return int64(len(s))
	}
	return n.size()
}

// itemSize is the size of it in bytes.
func itemSize(it item) int64 {
	var n int64
	for k, v := range it {
		n += int64(len(k)) + valueSize(v)
	}
	return n
}

// checkItemSize refuses items above DynamoDB's 400 KB limit.
func checkItemSize(size int64) error {
	if size > maxItemSize {
		return apiErr(ErrValidation, "Item size has exceeded the maximum allowed size")
	}
	return nil
}

// ItemSize returns the size in bytes DynamoDB accounts for item (the basis
// of capacity units and TableSizeBytes), computed as documented in the
// DynamoDB Developer Guide (see the package's item size notes). It fails if
// item is not a valid DynamoDB item; the error never contains a value.
func ItemSize(it map[string]types.AttributeValue) (int64, error) {
	conv, err := itemFromSDK(it)
	if err != nil {
		return 0, fmt.Errorf("awssim: item size: %w", err)
	}
	return itemSize(conv), nil
}
