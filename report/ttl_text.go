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
