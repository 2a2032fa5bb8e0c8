package awssim

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func TestDescribeContinuousBackups(t *testing.T) {
	s, _ := fixture(t, t0)
	for _, tb := range []Table{
		{Name: "pitr-off"},
		{Name: "pitr-full", CreationDateTime: t0.Add(-90 * 24 * time.Hour), PITR: PointInTimeRecovery{Enabled: true}},
		{Name: "pitr-7d", PITR: PointInTimeRecovery{Enabled: true, RecoveryPeriodDays: 7, EnabledAt: t0.Add(-30 * 24 * time.Hour)}},
		{Name: "pitr-new", PITR: PointInTimeRecovery{Enabled: true, EnabledAt: t0.Add(-2 * time.Hour)}},
	} {
		if err := s.PutTable("us-east-1", tb); err != nil {
			t.Fatal(err)
		}
	}
	ddb := clientsFor(s, cfg("us-east-1")).ddb
	ctx := context.Background()
	for _, c := range []struct {
		table    string
		status   types.PointInTimeRecoveryStatus
		earliest time.Time
		days     int32
	}{
		{"pitr-off", types.PointInTimeRecoveryStatusDisabled, time.Time{}, 0},
		{"pitr-full", types.PointInTimeRecoveryStatusEnabled, t0.Add(-35 * 24 * time.Hour), 35},
		{"pitr-7d", types.PointInTimeRecoveryStatusEnabled, t0.Add(-7 * 24 * time.Hour), 7},
		{"pitr-new", types.PointInTimeRecoveryStatusEnabled, t0.Add(-2 * time.Hour), 35},
	} {
		out, err := ddb.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String(c.table)})
		if err != nil {
			t.Fatalf("%s: %v", c.table, err)
		}
		d := out.ContinuousBackupsDescription
		if d.ContinuousBackupsStatus != types.ContinuousBackupsStatusEnabled {
			t.Errorf("%s: continuous backups %s, want ENABLED", c.table, d.ContinuousBackupsStatus)
		}
		p := d.PointInTimeRecoveryDescription
		if p.PointInTimeRecoveryStatus != c.status {
			t.Errorf("%s: PITR %s, want %s", c.table, p.PointInTimeRecoveryStatus, c.status)
		}
		if c.status == types.PointInTimeRecoveryStatusDisabled {
			if p.EarliestRestorableDateTime != nil || p.LatestRestorableDateTime != nil || p.RecoveryPeriodInDays != nil {
				t.Errorf("%s: restore window answered while PITR is disabled: %+v", c.table, p)
			}
			continue
		}
		if !aws.ToTime(p.EarliestRestorableDateTime).Equal(c.earliest) {
			t.Errorf("%s: earliest restorable %v, want %v", c.table, aws.ToTime(p.EarliestRestorableDateTime), c.earliest)
		}
		if want := t0.Add(-5 * time.Minute); !aws.ToTime(p.LatestRestorableDateTime).Equal(want) {
			t.Errorf("%s: latest restorable %v, want %v", c.table, aws.ToTime(p.LatestRestorableDateTime), want)
		}
		if aws.ToInt32(p.RecoveryPeriodInDays) != c.days {
			t.Errorf("%s: recovery period %d days, want %d", c.table, aws.ToInt32(p.RecoveryPeriodInDays), c.days)
		}
	}

	_, err := ddb.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("missing")})
	var nf *types.TableNotFoundException
	if !errors.As(err, &nf) {
		t.Errorf("missing table: got %v, want TableNotFoundException", err)
	}
	s.Deny("dynamodb:DescribeContinuousBackups")
	_, err = ddb.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("pitr-full")})
	wantAPIError(t, err, "AccessDeniedException")
}

func TestPutTableRejectsRecoveryPeriod(t *testing.T) {
	s, _ := fixture(t, t0)
	for _, days := range []int{-1, 36} {
		if err := s.PutTable("us-east-1", Table{Name: "bad-pitr", PITR: PointInTimeRecovery{Enabled: true, RecoveryPeriodDays: days}}); err == nil {
			t.Errorf("recovery period %d days accepted", days)
		}
	}
}
