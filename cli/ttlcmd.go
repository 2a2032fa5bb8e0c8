package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/capacity"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/report"
	"github.com/dynamodb-exporter/dynamodb_exporter/ttl"
)

// ttlCmd groups the TTL tools.
type ttlCmd struct {
	Audit  ttlAuditCmd  `cmd:"" help:"Sample one table once and report its TTL health: classes, estimates with 95% intervals, deletion lag, capacity consumed."`
	Decode ttlDecodeCmd `cmd:"" help:"Tell what DynamoDB TTL does with a value: the unit it reads, the date it resolves to, and the date meant if it was milliseconds (or finer)."`
}

type ttlDecodeCmd struct {
	Value string `arg:"" help:"A TTL attribute value as stored, e.g. 1790812800 or 1790812800000."`
}

// Run prints the decoding of one value.
func (c *ttlDecodeCmd) Run() error {
	writeDecode(os.Stdout, c.Value, time.Now())
	return nil
}

func writeDecode(w io.Writer, value string, now time.Time) {
	d := ttl.Decode(value, now)
	fmt.Fprintf(w, "class: %s (%s)\n", d.Class, d.Class.Description())
	if !d.Valid {
		fmt.Fprintln(w, "the value is not a DynamoDB Number: TTL ignores it and the item never expires")
		return
	}
	if d.SecondsOK {
		fmt.Fprintf(w, "read as epoch seconds (what TTL does): %s\n", d.Seconds.UTC().Format(time.RFC3339))
	} else {
		fmt.Fprintln(w, "read as epoch seconds (what TTL does): beyond any representable date")
	}
	if d.LikelyUnit != ttl.UnitSeconds {
		fmt.Fprintf(w, "looks like %s: meant %s; store %d seconds instead\n",
			d.LikelyUnit, d.InLikelyUnit.UTC().Format(time.RFC3339), d.InLikelyUnit.Unix())
	}
	if d.Class.NeverExpires() {
		fmt.Fprintln(w, "TTL will never delete an item holding this value")
	}
}

type ttlAuditCmd struct {
	configFlags
	logFlags
	Table       string  `required:"" help:"Table to audit."`
	Region      string  `help:"Region of the table (default: the first region of the first account)."`
	Account     string  `help:"Account name from the config (default: the first)."`
	Attribute   string  `help:"TTL attribute to classify (default: the table's TTL setting)."`
	SampleItems int     `help:"Items the sample aims to read." default:"1500"`
	Budget      float64 `help:"Read capacity units the sample may consume." default:"500"`
	MaxReadRate float64 `help:"Read capacity units per second at most." default:"20"`
	Format      string  `help:"table (text), json (for scripts; schema in docs/ttl-audit.md), markdown (for a ticket) or html (one self-contained file). Progress goes to standard error for the last three." default:"table" enum:"table,json,markdown,html"`
	// prices price the expired backlog's storage (collectors.capacity.prices).
	prices []capacity.PriceOverride
}

// Run samples the table once and prints the report.
func (c *ttlAuditCmd) Run(ctx context.Context) error {
	cfg, err := c.load()
	if err != nil {
		return err
	}
	targets, err := awsclient.NewTargets(ctx, cfg, awsclient.Options{})
	if err != nil {
		return err
	}
	var target *awsclient.Target
	for _, t := range targets {
		if (c.Account == "" || t.Account == c.Account) && (c.Region == "" || t.Region == c.Region) {
			target = t
			break
		}
	}
	if target == nil {
		return fmt.Errorf("no configured account %q in region %q", c.Account, c.Region)
	}
	c.prices = exporter.CapacitySettings(cfg.Collectors.Capacity).Prices
	status, tty := io.Writer(os.Stdout), isTerminal(os.Stdout)
	if c.Format != "" && c.Format != "table" {
		status, tty = os.Stderr, isTerminal(os.Stderr)
	}
	return audit(ctx, target, c, os.Stdout, status, tty, time.Now())
}

// audit samples the table and writes the report to w in c.Format; the
// header and the progress go to status (w itself for the text format).
func audit(ctx context.Context, t *awsclient.Target, c *ttlAuditCmd, w, status io.Writer, tty bool, now time.Time) error {
	at, err := collectors.DescribeForTTLAudit(ctx, t.DynamoDB, c.Table, c.Attribute)
	if err != nil {
		return err
	}
	fmt.Fprintf(status, "table %s (%s, %s): TTL %s on attribute %q, %d items reported by DynamoDB\n",
		c.Table, t.Account, t.Region, at.Status, at.Attribute, at.Items)
	progress := func(done, planned int) {
		if tty {
			const width = 30
			filled := done * width / max(planned, 1)
			fmt.Fprintf(status, "\r[%s%s] %d/%d segments", strings.Repeat("#", filled), strings.Repeat(" ", width-filled), done, planned)
			if done == planned {
				fmt.Fprintln(status)
			}
		} else if done == planned || done%max(planned/10, 1) == 0 {
			fmt.Fprintf(status, "sampled %d/%d segments\n", done, planned)
		}
	}
	res, err := collectors.SampleTable(ctx, t.DynamoDB, at.Description, collectors.SampleOptions{
		Attribute: at.Attribute, SampleItems: c.SampleItems, Budget: c.Budget, MaxReadRate: c.MaxReadRate, Now: now, Progress: progress,
	})
	if err != nil {
		return err
	}
	head := report.TTLAuditHead{Account: t.Account, Region: t.Region, Table: c.Table, Status: at.Status,
		Attribute: at.Attribute, TableItems: at.Items, Now: now}
	// The expired backlog's storage price: the table's class in its
	// region; absent (with why) without a reported class or a price.
	if cs := at.Description.TableClassSummary; cs == nil || cs.TableClass == "" {
		head.StoragePriceErr = "DescribeTable reports no table class"
	} else {
		head.TableClass = string(cs.TableClass)
		if p, err := capacity.StoragePriceFor(t.Region, capacity.TableClass(cs.TableClass), c.prices...); err != nil {
			head.StoragePriceErr = err.Error()
		} else {
			head.StorageGBMonth = p
		}
	}
	return report.TTL(w, c.Format, head, res)
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
