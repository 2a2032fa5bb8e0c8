package awssim

import (
	"encoding/json"
	"fmt"
)

// avKind is the data type of an attribute value.
type avKind uint8

// The DynamoDB data types. kindNone marks a value that is not valid (see
// attrValue.bad).
const (
	kindNone avKind = iota
	kindS
	kindN
	kindB
	kindBOOL
	kindNULL
	kindM
	kindL
	kindSS
	kindNS
	kindBS
)

// String is the type descriptor DynamoDB uses in requests and messages.
func (k avKind) String() string {
	switch k {
	case kindS:
		return "S"
	case kindN:
		return "N"
	case kindB:
		return "B"
	case kindBOOL:
		return "BOOL"
	case kindNULL:
		return "NULL"
	case kindM:
		return "M"
	case kindL:
		return "L"
	case kindSS:
		return "SS"
	case kindNS:
		return "NS"
	case kindBS:
		return "BS"
	}
	return "?"
}

// attrValue is one DynamoDB attribute value. Stored values are never
// mutated, so they can be shared between the store and responses.
type attrValue struct {
	kind avKind
	str  string // S; N in the normal form of decNumber.String
	bin  []byte // B
	bl   bool   // BOOL
	m    map[string]attrValue
	l    []attrValue
	strs []string // SS; NS in normal form
	bins [][]byte // BS
	// bad explains why a decoded value is invalid (kindNone); validation
	// reports it. It never contains the value.
	bad string
}

// item is one DynamoDB item: attribute name -> value.
type item map[string]attrValue

// Messages for malformed attribute values, as DynamoDB words them.
const (
	msgEmptyAV    = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
	msgMultiAV    = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
	msgNullFalse  = "One or more parameter values were invalid: Null attribute value types must have the value of true"
	msgNesting    = "Nesting Levels have exceeded supported limits"
	msgDuplicates = "One or more parameter values were invalid: Input collection contains duplicates"
)

// maxNestingDepth is how deeply lists and maps may nest.
const maxNestingDepth = 32

// wireAV is the AWS JSON shape of an AttributeValue. Pointers tell an absent
// member from an empty one.
type wireAV struct {
	S    *string
	N    *string
	B    *[]byte // base64 on the wire
	BOOL *bool
	NULL *bool
	M    *map[string]attrValue
	L    *[]attrValue
	SS   *[]string
	NS   *[]string
	BS   *[][]byte
}

// UnmarshalJSON decodes the wire shape. Semantic problems (no or several
// types, NULL false) do not fail decoding: they are recorded in bad and
// reported by validation, which knows the request context.
func (v *attrValue) UnmarshalJSON(b []byte) error {
	var w wireAV
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("decode AttributeValue: %w", err)
	}
	*v = attrValue{}
	set := 0
	// member counts a member present on the wire and takes its kind.
	member := func(present bool, k avKind) bool {
		if present {
			set++
			v.kind = k
		}
		return present
	}
	if member(w.S != nil, kindS) {
		v.str = *w.S
	}
	if member(w.N != nil, kindN) {
		v.str = *w.N
	}
	if member(w.B != nil, kindB) {
		v.bin = *w.B
	}
	if member(w.BOOL != nil, kindBOOL) {
		v.bl = *w.BOOL
	}
	if member(w.NULL != nil, kindNULL) && !*w.NULL {
		v.bad = msgNullFalse
	}
	if member(w.M != nil, kindM) {
		v.m = *w.M
		if v.m == nil {
			v.m = map[string]attrValue{}
		}
	}
	if member(w.L != nil, kindL) {
		v.l = *w.L
		if v.l == nil {
			v.l = []attrValue{}
		}
	}
	if member(w.SS != nil, kindSS) {
		v.strs = *w.SS
	}
	if member(w.NS != nil, kindNS) {
		v.strs = *w.NS
	}
	if member(w.BS != nil, kindBS) {
		v.bins = *w.BS
	}
	switch {
	case set == 0:
		v.kind, v.bad = kindNone, msgEmptyAV
	case set > 1:
		v.kind, v.bad = kindNone, msgMultiAV
	case v.bad != "":
		v.kind = kindNone
	}
	return nil
}

// MarshalJSON encodes v in the AWS JSON shape.
func (v attrValue) MarshalJSON() ([]byte, error) {
	var out any
	switch v.kind {
	case kindS:
		out = struct{ S string }{v.str}
	case kindN:
		out = struct{ N string }{v.str}
	case kindB:
		out = struct{ B []byte }{nonNilBytes(v.bin)}
	case kindBOOL:
		out = struct{ BOOL bool }{v.bl}
	case kindNULL:
		out = struct{ NULL bool }{true}
	case kindM:
		m := v.m
		if m == nil {
			m = map[string]attrValue{}
		}
		out = struct{ M map[string]attrValue }{m}
	case kindL:
		l := v.l
		if l == nil {
			l = []attrValue{}
		}
		out = struct{ L []attrValue }{l}
	case kindSS:
		out = struct{ SS []string }{v.strs}
	case kindNS:
		out = struct{ NS []string }{v.strs}
	case kindBS:
		out = struct{ BS [][]byte }{v.bins}
	default:
		return nil, fmt.Errorf("encode AttributeValue: invalid value of kind %d", v.kind)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("encode AttributeValue %s: %w", v.kind, err)
	}
	return b, nil
}

// nonNilBytes makes an empty binary encode as "" rather than null.
func nonNilBytes(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// normalizeValue checks v as DynamoDB validates a request value and returns
// it with every Number in normal form. Errors are ValidationExceptions that
// name no value.
func normalizeValue(v attrValue, depth int) (attrValue, error) {
	if v.bad != "" || v.kind == kindNone {
		msg := v.bad
		if msg == "" {
			msg = msgEmptyAV
		}
		return attrValue{}, apiErr(ErrValidation, msg)
	}
	switch v.kind {
	case kindN:
		n, err := parseDecNumber(v.str)
		if err != nil {
			return attrValue{}, err
		}
		v.str = n.String()
	case kindM, kindL:
		if depth >= maxNestingDepth {
			return attrValue{}, apiErr(ErrValidation, msgNesting)
		}
		if v.kind == kindM {
			m := make(map[string]attrValue, len(v.m))
			for k, e := range v.m {
				ne, err := normalizeValue(e, depth+1)
				if err != nil {
					return attrValue{}, err
				}
				m[k] = ne
			}
			v.m = m
		} else {
			l := make([]attrValue, len(v.l))
			for i, e := range v.l {
				ne, err := normalizeValue(e, depth+1)
				if err != nil {
					return attrValue{}, err
				}
				l[i] = ne
			}
			v.l = l
		}
	case kindSS, kindNS:
		if len(v.strs) == 0 {
			what := "string"
			if v.kind == kindNS {
				what = "number"
			}
			return attrValue{}, apiErr(ErrValidation, "One or more parameter values were invalid: An "+what+" set  may not be empty")
		}
		out := make([]string, len(v.strs))
		seen := make(map[string]bool, len(v.strs))
		for i, s := range v.strs {
			if v.kind == kindNS {
				n, err := parseDecNumber(s)
				if err != nil {
					return attrValue{}, err
				}
				s = n.String()
			}
			if seen[s] {
				return attrValue{}, apiErr(ErrValidation, msgDuplicates)
			}
			seen[s] = true
			out[i] = s
		}
		v.strs = out
	case kindBS:
		if len(v.bins) == 0 {
			return attrValue{}, apiErr(ErrValidation, "One or more parameter values were invalid: Binary sets should not be empty")
		}
		seen := make(map[string]bool, len(v.bins))
		for _, b := range v.bins {
			if seen[string(b)] {
				return attrValue{}, apiErr(ErrValidation, msgDuplicates)
			}
			seen[string(b)] = true
		}
	}
	return v, nil
}

// normalizeItem validates and normalises every attribute of it.
func normalizeItem(it item) (item, error) {
	out := make(item, len(it))
	for name, v := range it {
		if name == "" {
			return nil, apiErr(ErrValidation, "One or more parameter values were invalid: An attribute name may not be empty")
		}
		nv, err := normalizeValue(v, 1)
		if err != nil {
			return nil, err
		}
		out[name] = nv
	}
	return out, nil
}
