package exporter_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
	"github.com/dynamodb-exporter/dynamodb_exporter/collectors"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/awssim"
)

// TestPITRFamilies reads point-in-time recovery through the real SDK from
// the simulator: the status, the recovery period and the restore window,
// which slides with the clock between the hourly reads.
func TestPITRFamilies(t *testing.T) {
	day := 24 * time.Hour
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\ncollectors: {ttl: {enabled: false}}\n", func(sim *awssim.Server) {
		full := provisioned("orders", 10, 5)
		full.CreationDateTime = start.Add(-90 * day)
		full.PITR = awssim.PointInTimeRecovery{Enabled: true}
		mustPut(sim, "us-east-1", full)
		recent := provisioned("invoices", 10, 5)
		recent.CreationDateTime = start.Add(-90 * day)
		recent.PITR = awssim.PointInTimeRecovery{Enabled: true, RecoveryPeriodDays: 7, EnabledAt: start.Add(-2 * day)}
		mustPut(sim, "us-east-1", recent)
		mustPut(sim, "us-east-1", provisioned("sessions", 10, 5))
	})
	h.cycle()
	check := func(now time.Time) {
		t.Helper()
		body := h.scrape()
		for _, c := range []struct {
			family, table string
			want          float64
		}{
			{catalogue.TablePITREnabled, "orders", 1},
			{catalogue.TablePITREnabled, "invoices", 1},
			{catalogue.TablePITREnabled, "sessions", 0},
			{catalogue.TablePITRRecoveryPeriod, "orders", (35 * day).Seconds()},
			{catalogue.TablePITRRecoveryPeriod, "invoices", (7 * day).Seconds()},
			{catalogue.TablePITREarliestRestorable, "orders", float64(now.Add(-35 * day).Unix())},
			{catalogue.TablePITREarliestRestorable, "invoices", float64(start.Add(-2 * day).Unix())},
		} {
			if got := mustValue(t, body, c.family, map[string]string{"table": c.table}); !near(got, c.want) {
				t.Errorf("%s{table=%s} = %v, want %v", c.family, c.table, got, c.want)
			}
		}
		for _, f := range []string{catalogue.TablePITRRecoveryPeriod, catalogue.TablePITREarliestRestorable} {
			if _, ok := value(t, body, f, map[string]string{"table": "sessions"}); ok {
				t.Errorf("%s present for a table with PITR off", f)
			}
		}
	}
	check(start)
	if n := h.sim.RequestCount(awssim.ServiceDynamoDB, "DescribeContinuousBackups"); n != 3 {
		t.Fatalf("DescribeContinuousBackups calls = %d, want 3 (one per table)", n)
	}
	// Within the hour no table is asked again, and the window slides.
	h.clk.Advance(30 * time.Minute)
	h.cycle()
	check(start.Add(30 * time.Minute))
	if n := h.sim.RequestCount(awssim.ServiceDynamoDB, "DescribeContinuousBackups"); n != 3 {
		t.Errorf("DescribeContinuousBackups calls = %d after 30 minutes, want still 3", n)
	}
	h.clk.Advance(30 * time.Minute)
	h.cycle()
	if n := h.sim.RequestCount(awssim.ServiceDynamoDB, "DescribeContinuousBackups"); n != 6 {
		t.Errorf("DescribeContinuousBackups calls = %d after an hour, want 6", n)
	}
}

// TestMissingPITRPermissionIsCountedNotFatal: dynamodb:DescribeContinuousBackups
// denied leaves the table monitored without its PITR families, counts the
// error, and is not asked again within the hour.
func TestMissingPITRPermissionIsCountedNotFatal(t *testing.T) {
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\ncollectors: {ttl: {enabled: false}}\n", func(sim *awssim.Server) {
		tb := provisioned("orders", 10, 5)
		tb.PITR = awssim.PointInTimeRecovery{Enabled: true}
		mustPut(sim, "us-east-1", tb)
		sim.Deny("dynamodb:DescribeContinuousBackups")
	})
	h.cycle()
	body := h.scrape()
	if _, ok := value(t, body, catalogue.TableInfo, map[string]string{"table": "orders"}); !ok {
		t.Error("a table whose PITR cannot be read must stay monitored")
	}
	if _, ok := value(t, body, catalogue.TableTTLInfo, map[string]string{"table": "orders"}); !ok {
		t.Error("TTL info must not depend on the PITR permission")
	}
	for _, f := range []string{catalogue.TablePITREnabled, catalogue.TablePITRRecoveryPeriod, catalogue.TablePITREarliestRestorable} {
		if _, ok := value(t, body, f, map[string]string{"table": "orders"}); ok {
			t.Errorf("%s emitted without a DescribeContinuousBackups answer", f)
		}
	}
	if got := mustValue(t, body, catalogue.ExporterCollectorErrorsTotal, map[string]string{"collector": "tables"}); got != 1 {
		t.Errorf("tables errors = %v, want 1", got)
	}
	if got := mustValue(t, body, catalogue.ExporterAWSRequestErrorsTotal, map[string]string{"operation": "DescribeContinuousBackups", "error_code": "AccessDeniedException"}); got != 1 {
		t.Errorf("AccessDenied count = %v, want 1", got)
	}
	h.clk.Advance(5 * time.Minute)
	h.cycle()
	if n := h.sim.RequestCount(awssim.ServiceDynamoDB, "DescribeContinuousBackups"); n != 1 {
		t.Errorf("DescribeContinuousBackups calls = %d, want 1: a denied call waits an hour", n)
	}
}

// TestPITRTransientErrorKeepsLastAnswerAndTableGoneDrops: a throttled
// DescribeContinuousBackups keeps the last answer and is retried at the next
// run; a table deleted between DescribeTable and DescribeContinuousBackups
// (TableNotFoundException) is dropped like any table that no longer exists.
func TestPITRTransientErrorKeepsLastAnswerAndTableGoneDrops(t *testing.T) {
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\ncollectors: {ttl: {enabled: false}}\n", func(sim *awssim.Server) {
		for _, name := range []string{"orders", "sessions"} {
			tb := provisioned(name, 10, 5)
			tb.PITR = awssim.PointInTimeRecovery{Enabled: true}
			mustPut(sim, "us-east-1", tb)
		}
	})
	h.cycle()
	h.clk.Advance(time.Hour)
	h.sim.InjectFault(awssim.Fault{Service: awssim.ServiceDynamoDB, Operation: "DescribeContinuousBackups", Table: "orders", Error: awssim.ErrThrottling})
	h.sim.AddFault(awssim.Fault{Service: awssim.ServiceDynamoDB, Operation: "DescribeContinuousBackups", Table: "sessions", Times: 1, OnMatch: func() {
		h.sim.DeleteTable("us-east-1", "sessions")
	}})
	h.cycle()
	body := h.scrape()
	if got := mustValue(t, body, catalogue.TablePITREnabled, map[string]string{"table": "orders"}); got != 1 {
		t.Errorf("orders: PITR enabled = %v after a throttled read, want the last answer (1)", got)
	}
	if _, ok := value(t, body, catalogue.TableInfo, map[string]string{"table": "sessions"}); ok {
		t.Error("sessions: deleted before its PITR read, still monitored")
	}
	if _, ok := value(t, body, catalogue.TablePITREnabled, map[string]string{"table": "sessions"}); ok {
		t.Error("sessions: PITR families of a deleted table still served")
	}
}

// TestPITRReadsArePacedAfterAStart: a first run over more tables than the
// pace's burst does not ask for every table's PITR at once; the tables not
// read yet are counted, keep no PITR figure, and are read at the next runs.
// The pace is in real time (AWS's limit is per second), so the bound allows
// for the time the run took.
func TestPITRReadsArePacedAfterAStart(t *testing.T) {
	const tables = 25
	h := newHarness(t, "accounts: [{regions: [us-east-1]}]\ncollectors: {ttl: {enabled: false}}\n", func(sim *awssim.Server) {
		for i := range tables {
			tb := provisioned(fmt.Sprintf("t%02d", i), 10, 5)
			tb.PITR = awssim.PointInTimeRecovery{Enabled: true}
			mustPut(sim, "us-east-1", tb)
		}
	})
	calls := func() int { return h.sim.RequestCount(awssim.ServiceDynamoDB, "DescribeContinuousBackups") }
	began := time.Now()
	h.cycle()
	allowed := 10 + int(math.Ceil(collectors.PITRReadsPerSecond*time.Since(began).Seconds()))
	first := calls()
	if first > allowed || first >= tables {
		t.Fatalf("first run made %d DescribeContinuousBackups calls for %d tables, want at most %d (burst 10 + %d/s)", first, tables, allowed, collectors.PITRReadsPerSecond)
	}
	check := func() int {
		t.Helper()
		body := h.scrape()
		unread := int(mustValue(t, body, catalogue.ExporterPITRUnreadTables, map[string]string{"region": "us-east-1"}))
		withStatus := 0
		for i := range tables {
			if _, ok := value(t, body, catalogue.TablePITREnabled, map[string]string{"table": fmt.Sprintf("t%02d", i)}); ok {
				withStatus++
			}
		}
		if unread != tables-calls() || withStatus != calls() {
			t.Fatalf("after %d calls: %s = %d and %d tables with %s, want %d and %d", calls(), catalogue.ExporterPITRUnreadTables, unread, withStatus, catalogue.TablePITREnabled, tables-calls(), calls())
		}
		return unread
	}
	check()
	for run := 0; check() > 0; run++ {
		if run == 10 {
			t.Fatalf("%d tables still unread after 10 more runs a second apart", check())
		}
		time.Sleep(time.Second) // the pace refills in real time
		h.clk.Advance(5 * time.Minute)
		h.cycle()
	}
	if calls() != tables {
		t.Errorf("%d calls to read %d tables once: a table was asked twice within the hour", calls(), tables)
	}
}
