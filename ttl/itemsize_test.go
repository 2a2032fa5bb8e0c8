package ttl

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestItemBytesKnownAnswers(t *testing.T) {
	item := map[string]types.AttributeValue{
		"pk":  &types.AttributeValueMemberS{Value: "user#42"},                                                                       // 2 + 7
		"ttl": &types.AttributeValueMemberN{Value: "1790812800"},                                                                    // 3 + ceil(8/2)+1 (digits 17908128)
		"ok":  &types.AttributeValueMemberBOOL{Value: true},                                                                         // 2 + 1
		"l":   &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberNULL{Value: true}}},            // 1 + 3 + 1 + 1
		"m":   &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"a": &types.AttributeValueMemberS{Value: "xy"}}}, // 1 + 3 + 1 + 1 + 2
	}
	if got, want := ItemBytes(item), int64(9+8+3+6+8); got != want {
		t.Errorf("ItemBytes %d, want %d", got, want)
	}
	for s, want := range map[string]int64{"0": 1, "-0.00": 1, "7": 2, "12": 2, "123": 3, "1.5e10": 2, "100": 2} {
		if got := numberBytes(s); got != want {
			t.Errorf("numberBytes(%q) = %d, want %d", s, got, want)
		}
	}
	keys := Projection{Index: "by-day", IndexKeys: []string{"day"}, Keys: []string{"pk", "day"}, Type: types.ProjectionTypeKeysOnly}
	if _, in := keys.EntryBytes(item); in {
		t.Error("an item without the index key is in the index")
	}
	item["day"] = &types.AttributeValueMemberS{Value: "2026-12-02"} // 3 + 10
	if n, in := keys.EntryBytes(item); !in || n != 9+13 {
		t.Errorf("KEYS_ONLY entry %d %v, want 22", n, in)
	}
	inc := keys
	inc.Type, inc.NonKey = types.ProjectionTypeInclude, []string{"ok", "absent"}
	if n, _ := inc.EntryBytes(item); n != 9+13+3 {
		t.Errorf("INCLUDE entry %d, want 25", n)
	}
	all := keys
	all.Type = types.ProjectionTypeAll
	if n, _ := all.EntryBytes(item); n != ItemBytes(item) {
		t.Errorf("ALL entry %d, want the item's %d", n, ItemBytes(item))
	}
}
