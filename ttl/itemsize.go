package ttl

import (
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Item and index-entry sizes for storage billing, from the DynamoDB
// Developer Guide:
//
//   - "Item sizes and formats": an item is the sum of its attribute names'
//     UTF-8 lengths and its values' sizes. String: UTF-8 bytes; Binary: the
//     bytes; Boolean and Null: 1 byte; Number: about 1 byte per two
//     significant digits, plus 1; List and Map: 3 bytes plus 1 per element
//     plus the elements (a Map element with its name); a set: its elements.
//   - DynamoDB pricing, "Data storage": billable size adds "a per-item
//     storage overhead of 100 bytes to account for indexing"
//     (StorageOverhead).
//   - "Storage considerations for Global Secondary Indexes": an item is in
//     a GSI only when it carries the index's key attributes; its index
//     entry holds the table's primary key, the index key and the projected
//     attributes, plus the same 100 bytes.
//
// The Number rule is approximate in AWS's own words; this counts
// ceil(significant digits / 2) + 1.
const StorageOverhead = 100

// ItemBytes returns the size of item as DynamoDB counts it, without the
// storage overhead.
func ItemBytes(item map[string]types.AttributeValue) int64 {
	var n int64
	for name, v := range item {
		n += int64(len(name)) + valueBytes(v)
	}
	return n
}

// Projection is what a GSI holds of an item: the attributes named by
// Keys (the table's and the index's key attributes) and, for
// ProjectionType INCLUDE, NonKey; ALL holds every attribute.
type Projection struct {
	Index string
	// IndexKeys are the index's own key attributes: an item lacking one
	// is not in the index.
	IndexKeys []string
	// Keys are the table's and the index's key attributes.
	Keys []string
	// Type is KEYS_ONLY, INCLUDE or ALL.
	Type   types.ProjectionType
	NonKey []string
}

// EntryBytes returns the size of item's entry in the GSI p, without the
// storage overhead, and whether the item is in the index at all.
func (p Projection) EntryBytes(item map[string]types.AttributeValue) (int64, bool) {
	for _, k := range p.IndexKeys {
		if _, ok := item[k]; !ok {
			return 0, false
		}
	}
	if p.Type == types.ProjectionTypeAll {
		return ItemBytes(item), true
	}
	var n int64
	seen := map[string]bool{}
	add := func(name string) {
		if v, ok := item[name]; ok && !seen[name] {
			seen[name] = true
			n += int64(len(name)) + valueBytes(v)
		}
	}
	for _, k := range p.Keys {
		add(k)
	}
	if p.Type == types.ProjectionTypeInclude {
		for _, k := range p.NonKey {
			add(k)
		}
	}
	return n, true
}

func valueBytes(v types.AttributeValue) int64 {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return int64(len(x.Value))
	case *types.AttributeValueMemberN:
		return numberBytes(x.Value)
	case *types.AttributeValueMemberB:
		return int64(len(x.Value))
	case *types.AttributeValueMemberBOOL, *types.AttributeValueMemberNULL:
		return 1
	case *types.AttributeValueMemberSS:
		var n int64
		for _, s := range x.Value {
			n += int64(len(s))
		}
		return n
	case *types.AttributeValueMemberNS:
		var n int64
		for _, s := range x.Value {
			n += numberBytes(s)
		}
		return n
	case *types.AttributeValueMemberBS:
		var n int64
		for _, b := range x.Value {
			n += int64(len(b))
		}
		return n
	case *types.AttributeValueMemberL:
		n := int64(3)
		for _, e := range x.Value {
			n += 1 + valueBytes(e)
		}
		return n
	case *types.AttributeValueMemberM:
		n := int64(3)
		for k, e := range x.Value {
			n += 1 + int64(len(k)) + valueBytes(e)
		}
		return n
	}
	return 0
}

// numberBytes is ceil(significant digits / 2) + 1 for the number's text
// (sign, point and exponent aside; leading and trailing zeros do not
// count); 1 for zero.
func numberBytes(s string) int64 {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		s = s[:i]
	}
	s = strings.Trim(strings.Replace(s, ".", "", 1), "0")
	if s == "" {
		return 1
	}
	return int64(len(s)+1)/2 + 1
}
