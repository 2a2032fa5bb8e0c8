package capacity

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// Storage and table-class facts, from AWS's public pages (checked
// 2026-12-02):
//
//   - Storage is billed per GB-month of the table's and its indexes' size;
//     "the first 25 GB consumed per month is free, and prices start from
//     $0.25 per GB-month thereafter" (aws.amazon.com/dynamodb/pricing, the
//     us-east-1 Standard price). The free tier is per account and region,
//     not per table: it is not modelled (list prices, like the throughput
//     prices).
//   - Standard-IA stores for about 60% less ($0.10 per GB-month in
//     us-east-1) and charges about 25% more for reads and writes
//     (standardIAMultiplier); "all secondary indexes associated with the
//     table use the same table class"; "when storage exceeds 50% of the
//     throughput (reads and writes) cost of a table using the DynamoDB
//     Standard table class, the DynamoDB Standard-IA table class can help
//     you reduce your total table cost" (DynamoDB Developer Guide,
//     "Considerations when choosing a table class",
//     WorkingWithTables.tableclasses.html). That 50% is the rounded form of
//     the break-even the prices give (ClassBreakEven: 5/12 of the
//     throughput cost at the list prices).
//   - DynamoDB allows no more than two table-class updates of a table in a
//     trailing 30-day period (the same guide page, as remembered: the
//     excerpts at hand when this was written did not show that sentence,
//     so verify it there); DescribeTable reports the latest update only
//     (TableClassSummary.LastUpdateDateTime, API reference
//     API_TableClassSummary.html).
const (
	// GB is the byte count of the GB storage is billed in.
	GB = 1 << 30
	// ClassChangeWindow is the trailing period AWS counts table-class
	// updates in (at most MaxClassChanges of them).
	ClassChangeWindow = 30 * 24 * time.Hour
	// MaxClassChanges is how many table-class updates ClassChangeWindow
	// allows.
	MaxClassChanges = 2
	// standardIAStorageRatio is the Standard-IA storage price relative to
	// Standard: $0.10 / $0.25 in us-east-1.
	standardIAStorageRatio = 0.4
)

// listStoragePrices holds the Standard table-class storage price per
// GB-month by region. Only the price read off AWS's pricing page is built
// in; any other region needs collectors.capacity.prices[].storage_gb_month
// (its storage figures are absent until then, never guessed).
var listStoragePrices = map[string]float64{
	"us-east-1": 0.25,
}

// StoragePriceFor returns the storage price per GB-month of region and
// table class, with the overrides for that region and class applied in
// order (later ones win): the Standard-IA price is the Standard price times
// 0.4 unless an override for Standard-IA gives it. An unknown class is an
// error naming it; so is a region without a storage price.
func StoragePriceFor(region string, class TableClass, overrides ...PriceOverride) (float64, error) {
	key := strings.ToLower(strings.TrimSpace(region))
	if class != Standard && class != StandardIA {
		return 0, fmt.Errorf("capacity: unknown table class %q (want %s or %s)", class, Standard, StandardIA)
	}
	p := listStoragePrices[key]
	if class == StandardIA {
		p *= standardIAStorageRatio
	}
	for i, o := range overrides {
		if strings.ToLower(strings.TrimSpace(o.Region)) != key || (o.TableClass != "" && o.TableClass != class) {
			continue
		}
		v := o.StorageGBMonth
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("capacity: price override %d for region %q: StorageGBMonth must be a positive number, got %v", i, region, v)
		}
		if v > 0 {
			p = v
			if o.TableClass == "" && class == StandardIA {
				// An override for every class is the Standard price.
				p = v * standardIAStorageRatio
			}
		}
	}
	if !(p > 0) {
		return 0, fmt.Errorf("capacity: no storage price for region %q and class %s: add storage_gb_month to a price override for it", region, class)
	}
	return p, nil
}

// StorageMonthly returns the monthly storage cost of bytes at price per
// GB-month.
func StorageMonthly(bytes, perGBMonth float64) float64 { return bytes / GB * perGBMonth }

// ClassAction is what a ClassAdvice advises.
type ClassAction string

const (
	// KeepClass advises staying in the current table class.
	KeepClass ClassAction = "keep"
	// SwitchToStandardIA advises switching to STANDARD_INFREQUENT_ACCESS.
	SwitchToStandardIA ClassAction = "switch_to_standard_ia"
	// SwitchToStandard advises switching to STANDARD.
	SwitchToStandard ClassAction = "switch_to_standard"
)

// Reason codes of a ClassAdvice beside ReasonCheaper and
// ReasonSavingBelowMinimum.
const (
	// ReasonRecentClassChange: the other class is cheaper by at least the
	// minimum, but the class changed within ClassChangeWindow: AWS allows
	// MaxClassChanges in that window and DescribeTable shows the latest
	// only, so another change may be refused, and switching back within a
	// month of a switch is churn, not a saving.
	ReasonRecentClassChange ReasonCode = "recent_class_change"
)

// ClassCost is the monthly cost of a table under one table class, in USD:
// the throughput of its current billing mode and the storage of the table
// and its GSIs.
type ClassCost struct {
	Class      TableClass
	Throughput float64
	Storage    float64
}

// Total is Throughput + Storage.
func (c ClassCost) Total() float64 { return c.Throughput + c.Storage }

// ClassInput is what CompareClasses decides from: the monthly throughput
// cost of the table's current billing mode and its storage, each priced in
// both classes.
type ClassInput struct {
	// Current is the table's class.
	Current TableClass
	// Standard and StandardIA are the table's monthly costs in each class.
	Standard, StandardIA ClassCost
	// LastChange is TableClassSummary.LastUpdateDateTime; zero when the
	// class never changed (or DescribeTable did not say).
	LastChange time.Time
	// Now is the time of the decision.
	Now time.Time
	// MinMonthlySaving is the smallest monthly saving, in USD, worth a
	// switch, read as Options.MinMonthlySaving: 0 is
	// DefaultMinMonthlySaving, a negative value no minimum.
	MinMonthlySaving float64
}

// ClassAdvice is the verdict of CompareClasses.
type ClassAdvice struct {
	Action ClassAction
	Code   ReasonCode
	// Saving is the current class's monthly total minus the other's: what a
	// switch saves a month (negative when it costs more).
	Saving float64
	// StorageShare is storage ÷ (storage + throughput) under Standard.
	StorageShare float64
	// BreakEven is the storage share above which Standard-IA is the
	// cheaper class at these prices (ClassBreakEven).
	BreakEven float64
}

// ClassBreakEven returns the share of a Standard table's monthly cost that
// storage must exceed for Standard-IA to be cheaper: with storage S and
// throughput T under Standard, Standard-IA costs S·s + T·t (s, t: the
// Standard-IA prices over the Standard ones), cheaper exactly when
// S·(1−s) > T·(t−1), that is when S ÷ (S+T) > (t−1) ÷ ((t−1) + (1−s)).
// At the list prices (s = 0.4, t = 1.25) storage must exceed 5/12 of the
// throughput cost, or 5/17 ≈ 29.4% of the total; AWS's guide rounds it to
// "storage exceeds 50% of the throughput cost". NaN when the prices do not
// make Standard-IA's storage cheaper and its throughput dearer.
func ClassBreakEven(std, ia ClassCost) float64 {
	if !(std.Storage > 0 && std.Throughput > 0) {
		return math.NaN()
	}
	s, t := ia.Storage/std.Storage, ia.Throughput/std.Throughput
	if !(s < 1 && t > 1) {
		return math.NaN()
	}
	return (t - 1) / ((t - 1) + (1 - s))
}

// CompareClasses advises the table class: switch when the other class's
// monthly total is lower by at least MinMonthlySaving and the class has not
// changed within ClassChangeWindow; keep otherwise, with the deciding
// reason. The switch is online (no downtime); the figures are the
// window's throughput at the current billing mode and today's storage.
func CompareClasses(in ClassInput) (ClassAdvice, error) {
	if in.Current != Standard && in.Current != StandardIA {
		return ClassAdvice{}, fmt.Errorf("capacity: unknown table class %q (want %s or %s)", in.Current, Standard, StandardIA)
	}
	for _, c := range []ClassCost{in.Standard, in.StandardIA} {
		for _, v := range []float64{c.Throughput, c.Storage} {
			if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				return ClassAdvice{}, fmt.Errorf("capacity: class costs must be finite and >= 0, got %+v", c)
			}
		}
	}
	cur, other, to := in.Standard, in.StandardIA, SwitchToStandardIA
	if in.Current == StandardIA {
		cur, other, to = in.StandardIA, in.Standard, SwitchToStandard
	}
	a := ClassAdvice{Action: KeepClass, Code: ReasonCheaper, Saving: cur.Total() - other.Total(),
		StorageShare: math.NaN(), BreakEven: ClassBreakEven(in.Standard, in.StandardIA)}
	if t := in.Standard.Total(); t > 0 {
		a.StorageShare = in.Standard.Storage / t
	}
	switch {
	case !(a.Saving > 0):
	case a.Saving < threshold(in.MinMonthlySaving, DefaultMinMonthlySaving):
		a.Code = ReasonSavingBelowMinimum
	case !in.LastChange.IsZero() && in.Now.Sub(in.LastChange) < ClassChangeWindow:
		a.Code = ReasonRecentClassChange
	default:
		a.Action = to
	}
	return a, nil
}
