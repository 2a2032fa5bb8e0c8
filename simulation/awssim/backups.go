package awssim

import "time"

// pitrLatestLag is how far behind the present the latest restorable time
// of point-in-time recovery runs: "LatestRestorableDateTime is typically 5
// minutes before the current time" (Amazon DynamoDB Developer Guide,
// "Point-in-time recovery for DynamoDB"; DescribeContinuousBackups API
// reference, PointInTimeRecoveryDescription).
const pitrLatestLag = 5 * time.Minute

// ddbDescribeContinuousBackups answers DescribeContinuousBackups as the
// DynamoDB API reference describes it: ContinuousBackupsDescription with
// ContinuousBackupsStatus (ENABLED for every table: DynamoDB keeps
// continuous backups itself; only point-in-time recovery is a setting) and
// PointInTimeRecoveryDescription. While PITR is ENABLED it also carries
// EarliestRestorableDateTime (the later of when PITR was enabled and now
// minus the recovery period: "You can restore to any point in time within
// the recovery period"), LatestRestorableDateTime (about five minutes ago)
// and RecoveryPeriodInDays (1 to 35). A missing table is a
// TableNotFoundException, not the ResourceNotFoundException of the other
// table operations ("Errors" of the same reference).
func (c *call) ddbDescribeContinuousBackups() (any, error) {
	var in struct{ TableName string }
	if err := c.decodeJSON(&in); err != nil {
		return nil, err
	}
	if err := c.admitTable(in.TableName); err != nil {
		return nil, err
	}
	t, ok := c.srv.Table(c.region, in.TableName)
	if !ok {
		return nil, apiErr(ErrTableNotFound, "Table not found: "+in.TableName)
	}
	type pitrDesc struct {
		PointInTimeRecoveryStatus  string
		EarliestRestorableDateTime *float64 `json:",omitempty"`
		LatestRestorableDateTime   *float64 `json:",omitempty"`
		RecoveryPeriodInDays       *int     `json:",omitempty"`
	}
	type backupsDesc struct {
		ContinuousBackupsStatus        string
		PointInTimeRecoveryDescription pitrDesc
	}
	d := backupsDesc{ContinuousBackupsStatus: "ENABLED", PointInTimeRecoveryDescription: pitrDesc{PointInTimeRecoveryStatus: "DISABLED"}}
	if p := t.PITR; p.Enabled {
		now := c.srv.now()
		earliest := now.Add(-time.Duration(p.RecoveryPeriodDays) * 24 * time.Hour)
		if p.EnabledAt.After(earliest) {
			earliest = p.EnabledAt
		}
		latest := now.Add(-pitrLatestLag)
		if latest.Before(earliest) {
			latest = earliest
		}
		days := p.RecoveryPeriodDays
		d.PointInTimeRecoveryDescription = pitrDesc{
			PointInTimeRecoveryStatus:  "ENABLED",
			EarliestRestorableDateTime: epoch(earliest),
			LatestRestorableDateTime:   epoch(latest),
			RecoveryPeriodInDays:       &days,
		}
	}
	return struct{ ContinuousBackupsDescription backupsDesc }{d}, nil
}
