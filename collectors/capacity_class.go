// Table class and storage figures of the capacity collector: the monthly
// storage cost of a table and its GSIs from DescribeTable's sizes, the
// table's monthly cost in each class (the what-if's throughput in the
// current billing mode, and the storage) and the class advice
// (capacity.CompareClasses).
package collectors

import (
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
)

// ClassMissing names why a table has no table-class comparison; it is the
// reason_code of dynamodb_capacity_class_recommendation_info with
// recommendation "none".
type ClassMissing string

// Why a table has no class comparison.
const (
	// ClassNotReported: DescribeTable's answer has no
	// TableClassSummary.TableClass (an older API answer); the class is not
	// guessed.
	ClassNotReported ClassMissing = "class_not_reported"
	// ClassUnknown: a class this build does not know.
	ClassUnknown ClassMissing = "unknown_class"
	// ClassNoPrice: no throughput or storage price for the region and a
	// class (set collectors.capacity.prices).
	ClassNoPrice ClassMissing = "no_price"
	// ClassNoSize: DescribeTable reports no size for the table or a GSI
	// (as for up to six hours after a table is created).
	ClassNoSize ClassMissing = "size_not_reported"
)

// ClassRecommendationNone is the recommendation label of a table without a
// class comparison.
const ClassRecommendationNone = "none"

// IndexStorage is the storage of the base table (Index "") or a GSI.
type IndexStorage struct {
	Index string
	// Bytes is TableSizeBytes or IndexSizeBytes.
	Bytes int64
	// Monthly is its storage cost a month at the table class's price; NaN
	// without a price.
	Monthly float64
}

// ClassFigures are a table's storage and table-class figures.
type ClassFigures struct {
	// Class is the class DescribeTable reports; empty when it reports none.
	Class capacity.TableClass
	// LastChange is TableClassSummary.LastUpdateDateTime (zero if absent).
	LastChange time.Time
	// Storage holds the base table then each GSI; empty when a size is
	// not reported.
	Storage []IndexStorage
	// Window is the cost window the comparison reads (the longest one
	// computed); empty without a comparison.
	Window string
	// Standard and StandardIA are the table's monthly costs in each class.
	Standard, StandardIA capacity.ClassCost
	// Advice is the comparison's verdict.
	Advice capacity.ClassAdvice
	// Missing is why there is no comparison; empty when there is one.
	Missing ClassMissing
}

// reportedClass returns the class DescribeTable reports and when it last
// changed; "" when the answer has none.
func reportedClass(tb *Table) (capacity.TableClass, time.Time) {
	d := tb.Description
	if d == nil || d.TableClassSummary == nil {
		return "", time.Time{}
	}
	return capacity.TableClass(d.TableClassSummary.TableClass), aws.ToTime(d.TableClassSummary.LastUpdateDateTime)
}

// tableStorage returns the sizes of the base table and its GSIs, in the
// order of Table.IndexNames after the base table; false when one is not
// reported.
func tableStorage(tb *Table) ([]IndexStorage, bool) {
	d := tb.Description
	if d == nil || d.TableSizeBytes == nil {
		return nil, false
	}
	out := []IndexStorage{{Bytes: aws.ToInt64(d.TableSizeBytes)}}
	for _, name := range tb.IndexNames() {
		for _, g := range d.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) != name {
				continue
			}
			if g.IndexSizeBytes == nil {
				return nil, false
			}
			out = append(out, IndexStorage{Index: name, Bytes: aws.ToInt64(g.IndexSizeBytes)})
		}
	}
	return out, true
}

// classFigures derives a table's class figures. results are the what-if's
// workload results of the longest cost window (window), nil without one;
// they are priced again in each class. A figure that cannot be computed
// honestly is left out, with the reason in Missing.
func (c *Capacity) classFigures(region string, tb *Table, mode capacity.Mode, window string, results []capacity.WorkloadResult, now time.Time) *ClassFigures {
	f := &ClassFigures{}
	f.Class, f.LastChange = reportedClass(tb)
	switch {
	case f.Class == "":
		f.Missing = ClassNotReported
		return f
	case f.Class != capacity.Standard && f.Class != capacity.StandardIA:
		f.Missing = ClassUnknown
		return f
	}
	storage, sized := tableStorage(tb)
	var perGB [2]float64
	var err error
	for k, class := range []capacity.TableClass{capacity.Standard, capacity.StandardIA} {
		if perGB[k], err = capacity.StoragePriceFor(region, class, c.settings.Prices...); err != nil {
			f.Missing = ClassNoPrice
		}
	}
	cur := 0
	if f.Class == capacity.StandardIA {
		cur = 1
	}
	var bytes float64
	for i := range storage {
		storage[i].Monthly = capacity.StorageMonthly(float64(storage[i].Bytes), perGB[cur])
		bytes += float64(storage[i].Bytes)
	}
	if f.Missing == "" {
		f.Storage = storage
	}
	switch {
	case f.Missing != "":
		return f
	case !sized:
		f.Missing = ClassNoSize
		return f
	case len(results) == 0 || mode.Validate() != nil:
		return f // no cost window yet (or no billing mode to price): storage only
	}
	var costs [2]capacity.ClassCost
	for k, class := range []capacity.TableClass{capacity.Standard, capacity.StandardIA} {
		prices, err := capacity.PricesForClass(region, class, c.settings.Prices...)
		if err != nil {
			f.Missing = ClassNoPrice
			return f
		}
		e, err := capacity.EvaluateResults(mode, prices, c.settings.Options, results)
		if err != nil {
			f.Missing = ClassNoPrice
			return f
		}
		costs[k] = capacity.ClassCost{Class: class, Throughput: e.MonthlyCurrent, Storage: capacity.StorageMonthly(bytes, perGB[k])}
	}
	advice, err := capacity.CompareClasses(capacity.ClassInput{
		Current: f.Class, Standard: costs[0], StandardIA: costs[1],
		LastChange: f.LastChange, Now: now, MinMonthlySaving: c.settings.Options.MinMonthlySaving,
	})
	if err != nil {
		f.Missing = ClassUnknown
		return f
	}
	f.Window, f.Standard, f.StandardIA, f.Advice = window, costs[0], costs[1], advice
	return f
}
