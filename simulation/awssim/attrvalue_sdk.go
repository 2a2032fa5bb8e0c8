package awssim

import (
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// fromSDK converts an SDK attribute value into the simulator's form without
// validating it (normalizeValue does). Unknown or nil members become an
// invalid value.
func fromSDK(av types.AttributeValue) attrValue {
	switch v := av.(type) {
	case *types.AttributeValueMemberS:
		return attrValue{kind: kindS, str: v.Value}
	case *types.AttributeValueMemberN:
		return attrValue{kind: kindN, str: v.Value}
	case *types.AttributeValueMemberB:
		return attrValue{kind: kindB, bin: slices.Clone(nonNilBytes(v.Value))}
	case *types.AttributeValueMemberBOOL:
		return attrValue{kind: kindBOOL, bl: v.Value}
	case *types.AttributeValueMemberNULL:
		if !v.Value {
			return attrValue{bad: msgNullFalse}
		}
		return attrValue{kind: kindNULL}
	case *types.AttributeValueMemberM:
		m := make(map[string]attrValue, len(v.Value))
		for k, e := range v.Value {
			m[k] = fromSDK(e)
		}
		return attrValue{kind: kindM, m: m}
	case *types.AttributeValueMemberL:
		l := make([]attrValue, len(v.Value))
		for i, e := range v.Value {
			l[i] = fromSDK(e)
		}
		return attrValue{kind: kindL, l: l}
	case *types.AttributeValueMemberSS:
		return attrValue{kind: kindSS, strs: slices.Clone(v.Value)}
	case *types.AttributeValueMemberNS:
		return attrValue{kind: kindNS, strs: slices.Clone(v.Value)}
	case *types.AttributeValueMemberBS:
		bs := make([][]byte, len(v.Value))
		for i, b := range v.Value {
			bs[i] = slices.Clone(nonNilBytes(b))
		}
		return attrValue{kind: kindBS, bins: bs}
	}
	return attrValue{bad: msgEmptyAV}
}

// toSDK converts v into a fresh SDK attribute value that shares nothing
// with the store.
func toSDK(v attrValue) types.AttributeValue {
	switch v.kind {
	case kindS:
		return &types.AttributeValueMemberS{Value: v.str}
	case kindN:
		return &types.AttributeValueMemberN{Value: v.str}
	case kindB:
		return &types.AttributeValueMemberB{Value: slices.Clone(nonNilBytes(v.bin))}
	case kindBOOL:
		return &types.AttributeValueMemberBOOL{Value: v.bl}
	case kindNULL:
		return &types.AttributeValueMemberNULL{Value: true}
	case kindM:
		m := make(map[string]types.AttributeValue, len(v.m))
		for k, e := range v.m {
			m[k] = toSDK(e)
		}
		return &types.AttributeValueMemberM{Value: m}
	case kindL:
		l := make([]types.AttributeValue, len(v.l))
		for i, e := range v.l {
			l[i] = toSDK(e)
		}
		return &types.AttributeValueMemberL{Value: l}
	case kindSS:
		return &types.AttributeValueMemberSS{Value: slices.Clone(v.strs)}
	case kindNS:
		return &types.AttributeValueMemberNS{Value: slices.Clone(v.strs)}
	case kindBS:
		bs := make([][]byte, len(v.bins))
		for i, b := range v.bins {
			bs[i] = slices.Clone(b)
		}
		return &types.AttributeValueMemberBS{Value: bs}
	}
	return nil
}

// itemFromSDK converts and validates an SDK item.
func itemFromSDK(in map[string]types.AttributeValue) (item, error) {
	it := make(item, len(in))
	for k, v := range in {
		it[k] = fromSDK(v)
	}
	out, err := normalizeItem(it)
	if err != nil {
		return nil, fmt.Errorf("invalid item: %w", err)
	}
	return out, nil
}

// itemToSDK converts a stored item into a fresh SDK item.
func itemToSDK(it item) map[string]types.AttributeValue {
	out := make(map[string]types.AttributeValue, len(it))
	for k, v := range it {
		out[k] = toSDK(v)
	}
	return out
}
