package testtools

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"testing"
)

// CheckFinite fails the test on a NaN or infinite float64 anywhere in v (its
// exported struct fields, pointers, slices and maps), naming its path: a
// loader that accepts such a number lets it reach every figure computed
// from it.
func CheckFinite(t testing.TB, v reflect.Value, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.Float64:
		if math.IsNaN(v.Float()) || math.IsInf(v.Float(), 0) {
			t.Fatalf("%s: accepted %v", path, v.Float())
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			CheckFinite(t, v.Elem(), path)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				CheckFinite(t, v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			CheckFinite(t, v.Index(i), path+"["+strconv.Itoa(i)+"]")
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			CheckFinite(t, v.MapIndex(k), path+"."+fmt.Sprint(k.Interface()))
		}
	}
}
