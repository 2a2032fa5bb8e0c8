package capacity

import (
	"math"
	"testing"
	"time"
)

// classCosts prices throughput T and storage S (both under Standard, USD a
// month) in both classes at us-east-1's list prices.
func classCosts(t *testing.T, throughput, storage float64) (ClassCost, ClassCost) {
	t.Helper()
	std, err := StoragePriceFor("us-east-1", Standard)
	if err != nil {
		t.Fatal(err)
	}
	ia, err := StoragePriceFor("us-east-1", StandardIA)
	if err != nil {
		t.Fatal(err)
	}
	bytes := storage / std * GB
	return ClassCost{Standard, throughput, StorageMonthly(bytes, std)},
		ClassCost{StandardIA, throughput * standardIAMultiplier, StorageMonthly(bytes, ia)}
}

// TestClassBreakEvenKnownAnswer pins the rule: at the list prices
// ($0.25 and $0.10 per GB-month, throughput ×1.25) Standard-IA is cheaper
// exactly when storage exceeds 5/12 of the throughput cost, 5/17 of the
// Standard total.
func TestClassBreakEvenKnownAnswer(t *testing.T) {
	std, ia := classCosts(t, 100, 41)
	if got := ClassBreakEven(std, ia); math.Abs(got-5.0/17) > 1e-12 {
		t.Fatalf("break-even share %v, want 5/17", got)
	}
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		storage float64
		want    ClassAction
		saving  float64
	}{
		{41, KeepClass, -0.4},         // IA: 16.4 + 125 = 141.4 against 141
		{41.6666, KeepClass, -0.0000}, // the break-even itself: no saving
		{42, SwitchToStandardIA, 0.2}, // IA: 16.8 + 125 = 141.8 against 142
		{1000, SwitchToStandardIA, 575},
	} {
		std, ia := classCosts(t, 100, c.storage)
		a, err := CompareClasses(ClassInput{Current: Standard, Standard: std, StandardIA: ia, Now: now, MinMonthlySaving: -1})
		if err != nil {
			t.Fatal(err)
		}
		if a.Action != c.want || math.Abs(a.Saving-c.saving) > 1e-3 {
			t.Errorf("storage %v: %s saving %.4f, want %s %.4f", c.storage, a.Action, a.Saving, c.want, c.saving)
		}
		if ia := a.StorageShare > a.BreakEven; ia != (c.want == SwitchToStandardIA) {
			t.Errorf("storage %v: share %v against break-even %v disagrees with %s", c.storage, a.StorageShare, a.BreakEven, a.Action)
		}
	}
	// And from Standard-IA back: the same table with little storage.
	std, ia = classCosts(t, 100, 10)
	a, _ := CompareClasses(ClassInput{Current: StandardIA, Standard: std, StandardIA: ia, Now: now, MinMonthlySaving: -1})
	if a.Action != SwitchToStandard || math.Abs(a.Saving-(129-110)) > 1e-9 {
		t.Errorf("IA table with storage 10 of 110: %+v, want switch_to_standard saving 19", a)
	}
}

func TestCompareClassesMinimumAndRecentChange(t *testing.T) {
	now := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	std, ia := classCosts(t, 100, 1000) // IA saves 575 a month
	for _, c := range []struct {
		name       string
		min        float64
		lastChange time.Time
		action     ClassAction
		code       ReasonCode
	}{
		{"cheaper", 50, time.Time{}, SwitchToStandardIA, ReasonCheaper},
		{"below the minimum", 600, time.Time{}, KeepClass, ReasonSavingBelowMinimum},
		{"the default minimum ($50)", 0, time.Time{}, SwitchToStandardIA, ReasonCheaper},
		{"changed 29 days ago", 50, now.Add(-29 * 24 * time.Hour), KeepClass, ReasonRecentClassChange},
		{"changed 30 days ago", 50, now.Add(-ClassChangeWindow), SwitchToStandardIA, ReasonCheaper},
	} {
		a, err := CompareClasses(ClassInput{Current: Standard, Standard: std, StandardIA: ia, LastChange: c.lastChange, Now: now, MinMonthlySaving: c.min})
		if err != nil {
			t.Fatal(err)
		}
		if a.Action != c.action || a.Code != c.code {
			t.Errorf("%s: %s/%s, want %s/%s", c.name, a.Action, a.Code, c.action, c.code)
		}
	}
}

func TestClassBadInput(t *testing.T) {
	if _, err := CompareClasses(ClassInput{Current: "GLACIER"}); err == nil {
		t.Error("an unknown class: no error")
	}
	if _, err := CompareClasses(ClassInput{Current: Standard, Standard: ClassCost{Throughput: math.NaN()}}); err == nil {
		t.Error("a NaN cost: no error")
	}
	if _, err := StoragePriceFor("us-east-1", "GLACIER"); err == nil {
		t.Error("StoragePriceFor: an unknown class: no error")
	}
	if _, err := StoragePriceFor("eu-west-3", Standard); err == nil {
		t.Error("StoragePriceFor: a region without a storage price: no error")
	}
	p, err := StoragePriceFor("eu-west-3", StandardIA, PriceOverride{Region: "eu-west-3", Prices: Prices{StorageGBMonth: 0.3}})
	if err != nil || math.Abs(p-0.12) > 1e-12 {
		t.Errorf("an override for every class is the Standard price: IA %v, %v; want 0.12", p, err)
	}
	p, err = StoragePriceFor("eu-west-3", StandardIA, PriceOverride{Region: "eu-west-3", TableClass: StandardIA, Prices: Prices{StorageGBMonth: 0.11}})
	if err != nil || p != 0.11 {
		t.Errorf("an IA override: %v, %v; want 0.11", p, err)
	}
	if v := ClassBreakEven(ClassCost{Storage: 1, Throughput: 1}, ClassCost{Storage: 2, Throughput: 1}); !math.IsNaN(v) {
		t.Errorf("IA storage dearer: break-even %v, want NaN", v)
	}
}
