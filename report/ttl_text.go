package report

import (
	"fmt"
	"io"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/ttl"
)

// TTL writes a TTL audit in format: table (text), json, markdown or html.
func TTL(w io.Writer, format string, h TTLAuditHead, res collectors.SampleResult) error {
	switch format {
	case "json":
		return TTLJSON(w, h, res)
	case "markdown":
		return TTLMarkdown(w, h, res)
	case "html":
		return TTLHTML(w, h, res)
	case "table", "":
		TTLText(w, res)
		TTLStorageText(w, h, res)
		return nil
	}
	return fmt.Errorf("report format %q: use table, json, markdown or html", format)
}

// TTLText writes a TTL audit's sample as text: what was read, the classes,
// the estimates with their 95% intervals and the deletion lag.
func TTLText(w io.Writer, res collectors.SampleResult) {
	counts := res.Counts()
	var read int64
	for _, n := range counts {
		read += n
	}
	fmt.Fprintf(w, "read %d items in %d of %d segments (%d planned)", read, len(res.Sample.Segments), res.Sample.TotalSegments, res.Planned)
	if !res.Complete {
		fmt.Fprint(w, "; the read budget ran out: the segments read form the sample")
	}
	fmt.Fprintf(w, "\ncapacity consumed: %.1f read capacity units\n\nclass            items  meaning\n", res.ConsumedReadUnits)
	for _, c := range ttl.Classes() {
		fmt.Fprintf(w, "%-15s %6d  %s\n", c, counts[c], c.Description())
	}
	for _, e := range []struct {
		label string
		set   ttl.ClassSet
	}{{"expired, not yet deleted", ttl.SetOf(ttl.Expired)}, {"never expiring", ttl.NeverExpiring}} {
		est, err := res.Sample.Estimate(e.set)
		if err != nil {
			fmt.Fprintf(w, "%s: no estimate (%v)\n", e.label, err)
			continue
		}
		exact := ""
		if est.Exact {
			exact = " (every segment read: exact)"
		}
		fmt.Fprintf(w, "%s: %.0f items (95%% interval %.0f to %.0f), %.2f%% of %.0f items%s\n",
			e.label, est.Items, est.ItemsLower, est.ItemsUpper, 100*est.Fraction, est.TableItems, exact)
	}
	if res.OldestExpiredAge > 0 {
		fmt.Fprintf(w, "oldest expired item seen expired %s ago (deletion lag)\n", res.OldestExpiredAge.Round(time.Second))
	} else {
		fmt.Fprintln(w, "no expired item seen")
	}
}

// TTLStorageText writes the storage the expired-but-undeleted items hold,
// in the table and each GSI, and its cost a month.
func TTLStorageText(w io.Writer, h TTLAuditHead, res collectors.SampleResult) {
	s := expiredStorage(h, res)
	if s == nil {
		fmt.Fprintln(w, "expired items' storage: unknown (no expired estimate, or no expired item read whole)")
		return
	}
	fmt.Fprint(w, "expired items' storage:")
	for i, x := range s.Indexes {
		name := "table"
		if x.Index != "" {
			name = "GSI " + x.Index
		}
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(w, "%s %s %.2f MiB", sep, name, x.Bytes/(1<<20))
		if x.MonthlyCost != nil {
			fmt.Fprintf(w, " ($%.2f a month)", *x.MonthlyCost)
		}
	}
	if s.MonthlyCost != nil {
		fmt.Fprintf(w, "; $%.2f a month in all at $%g per GB-month (%s, list price, free tier not deducted)\n", *s.MonthlyCost, *s.StorageGBMonth, s.TableClass)
	} else {
		fmt.Fprintf(w, "; no price: %s\n", s.PriceError)
	}
}
