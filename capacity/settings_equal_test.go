package capacity

import (
	"reflect"
	"testing"
	"time"
)

// TestAutoScalingSettingsEqualComparesEveryField changes each field of a
// copy in turn and checks that Equal sees the difference, so a field added
// later without its comparison fails here.
func TestAutoScalingSettingsEqualComparesEveryField(t *testing.T) {
	base := DefaultAutoScaling()
	base.Scheduled = []ScheduledAction{{Name: "evening", Schedule: "cron(30 19 * * ? *)", Min: 100}}
	if !base.Equal(base) {
		t.Fatal("settings not equal to themselves")
	}
	v := reflect.ValueOf(&base).Elem()
	for i := 0; i < v.NumField(); i++ {
		changed := base
		changed.Scheduled = append([]ScheduledAction(nil), base.Scheduled...)
		f := reflect.ValueOf(&changed).Elem().Field(i)
		switch f.Kind() {
		case reflect.Float64:
			f.SetFloat(f.Float() + 1)
		case reflect.Int64: // time.Duration
			f.SetInt(f.Int() + int64(time.Second))
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.Slice:
			changed.Scheduled[0].End = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		default:
			t.Fatalf("field %s of kind %s: teach this test to change it", v.Type().Field(i).Name, f.Kind())
		}
		if base.Equal(changed) {
			t.Errorf("Equal ignores a change of %s", v.Type().Field(i).Name)
		}
	}
}
