package awssim

import (
	"fmt"
	"time"

	"github.com/dynamodb-exporter/dynamodb_exporter/clock"
)

// Regions of the fixture account.
const (
	FixtureRegion   = "us-east-1"
	FixtureRegionEU = "eu-west-1"
	// FixtureRegionAP holds the other replica of the global table
	// events-archive; the fixture has nothing else there.
	FixtureRegionAP = "ap-southeast-2"
)

// fixtureTime parses a fixed RFC 3339 time of the fixture.
func fixtureTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(fmt.Sprintf("awssim: fixture time %q: %v", s, err))
	}
	return t
}

// fixtureTables returns the fixture's tables by region. All times are fixed
// so that the fixture is identical whatever the clock.
func fixtureTables() map[string][]Table {
	pkSk := []KeyElement{{AttributeName: "pk", KeyType: "HASH"}, {AttributeName: "sk", KeyType: "RANGE"}}
	pkSkDefs := []AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "S"}}
	return map[string][]Table{
		FixtureRegion: {
			{
				Name:             "orders",
				CreationDateTime: fixtureTime("2023-03-14T09:26:53Z"),
				ItemCount:        1254331,
				SizeBytes:        412338120,
				BillingMode:      BillingProvisioned,
				Throughput: Throughput{
					ReadCapacityUnits: 100, WriteCapacityUnits: 50,
					LastIncreaseDateTime:   fixtureTime("2024-11-29T13:05:00Z"),
					LastDecreaseDateTime:   fixtureTime("2024-12-02T03:10:00Z"),
					NumberOfDecreasesToday: 1,
				},
				KeySchema: pkSk,
				AttributeDefinitions: append(pkSkDefs,
					AttributeDefinition{AttributeName: "customer_id", AttributeType: "S"},
					AttributeDefinition{AttributeName: "status", AttributeType: "S"},
					AttributeDefinition{AttributeName: "created_at", AttributeType: "N"}),
				GSIs: []GlobalSecondaryIndex{
					{
						IndexName:  "by-customer",
						KeySchema:  []KeyElement{{AttributeName: "customer_id", KeyType: "HASH"}, {AttributeName: "created_at", KeyType: "RANGE"}},
						ItemCount:  1254331,
						SizeBytes:  98442001,
						Throughput: Throughput{ReadCapacityUnits: 50, WriteCapacityUnits: 50},
					},
					{
						IndexName:      "by-status",
						KeySchema:      []KeyElement{{AttributeName: "status", KeyType: "HASH"}, {AttributeName: "created_at", KeyType: "RANGE"}},
						ProjectionType: "KEYS_ONLY",
						ItemCount:      1198210,
						SizeBytes:      61007312,
						Throughput:     Throughput{ReadCapacityUnits: 20, WriteCapacityUnits: 50},
					},
				},
				Tags: map[string]string{"team": "payments", "env": "prod"},
				TTL:  TimeToLive{Status: TTLEnabled, AttributeName: "expires_at"},
				PITR: PointInTimeRecovery{Enabled: true, RecoveryPeriodDays: 14},
			},
			{
				Name:                              "sessions",
				CreationDateTime:                  fixtureTime("2022-08-01T12:00:00Z"),
				ItemCount:                         88213,
				SizeBytes:                         20114550,
				BillingMode:                       BillingPayPerRequest,
				LastUpdateToPayPerRequestDateTime: fixtureTime("2023-01-10T08:30:00Z"),
				OnDemand:                          OnDemandThroughput{MaxReadRequestUnits: 1000},
				KeySchema:                         []KeyElement{{AttributeName: "session_id", KeyType: "HASH"}},
				AttributeDefinitions:              []AttributeDefinition{{AttributeName: "session_id", AttributeType: "S"}},
				Tags:                              map[string]string{"team": "identity", "env": "prod"},
				TTL:                               TimeToLive{Status: TTLEnabled, AttributeName: "ttl"},
			},
			{
				Name:                 "audit-log",
				CreationDateTime:     fixtureTime("2021-05-20T17:45:10Z"),
				ItemCount:            5521,
				SizeBytes:            2210344,
				BillingMode:          BillingProvisioned,
				Throughput:           Throughput{ReadCapacityUnits: 5, WriteCapacityUnits: 5},
				KeySchema:            pkSk,
				AttributeDefinitions: pkSkDefs,
				Tags:                 map[string]string{"env": "staging"},
				TTL:                  TimeToLive{Status: TTLDisabled},
			},
			{
				Name:                              "events-archive",
				CreationDateTime:                  fixtureTime("2020-02-02T02:02:02Z"),
				ItemCount:                         48810021,
				SizeBytes:                         20917733012,
				BillingMode:                       BillingPayPerRequest,
				LastUpdateToPayPerRequestDateTime: fixtureTime("2020-02-02T02:02:02Z"),
				TableClass:                        TableClassStandardIA,
				KeySchema:                         pkSk,
				AttributeDefinitions:              pkSkDefs,
				// A global table whose other replica is in a region
				// the fixture's exporter does not read.
				Replicas: []Replica{{RegionName: FixtureRegionAP}},
			},
		},
		FixtureRegionEU: {
			{
				Name:                 "orders-eu",
				CreationDateTime:     fixtureTime("2023-06-01T10:00:00Z"),
				ItemCount:            310220,
				SizeBytes:            101223344,
				BillingMode:          BillingProvisioned,
				Throughput:           Throughput{ReadCapacityUnits: 40, WriteCapacityUnits: 20},
				KeySchema:            pkSk,
				AttributeDefinitions: pkSkDefs,
				Tags:                 map[string]string{"team": "payments", "env": "prod"},
				TTL:                  TimeToLive{Status: TTLEnabled, AttributeName: "expires_at"},
			},
		},
	}
}

// fixtureScaling is the auto scaling of the fixture: table orders and its
// GSI by-customer, both dimensions, target 70%.
func fixtureScaling() ([]ScalableTarget, []ScalingPolicy) {
	created := fixtureTime("2023-03-14T09:40:00Z")
	type res struct {
		id         string
		read, writ string
		minR, maxR int32
		minW, maxW int32
	}
	var targets []ScalableTarget
	var policies []ScalingPolicy
	for _, r := range []res{
		{"table/orders", DimTableRead, DimTableWrite, 50, 400, 25, 200},
		{"table/orders/index/by-customer", DimIndexRead, DimIndexWrite, 25, 200, 25, 200},
	} {
		targets = append(targets,
			ScalableTarget{ResourceID: r.id, ScalableDimension: r.read, MinCapacity: r.minR, MaxCapacity: r.maxR, CreationTime: created},
			ScalableTarget{ResourceID: r.id, ScalableDimension: r.writ, MinCapacity: r.minW, MaxCapacity: r.maxW, CreationTime: created})
		policies = append(policies,
			ScalingPolicy{PolicyName: "DynamoDBReadCapacityUtilization:" + r.id, ResourceID: r.id, ScalableDimension: r.read,
				TargetValue: 70, PredefinedMetricType: MetricReadUtilization, ScaleInCooldown: 60, ScaleOutCooldown: 60, CreationTime: created},
			ScalingPolicy{PolicyName: "DynamoDBWriteCapacityUtilization:" + r.id, ResourceID: r.id, ScalableDimension: r.writ,
				TargetValue: 70, PredefinedMetricType: MetricWriteUtilization, ScaleInCooldown: 60, ScaleOutCooldown: 60, CreationTime: created})
	}
	return targets, policies
}

// LoadFixture adds the fixture account to s: tables orders, sessions,
// audit-log and events-archive in us-east-1, orders-eu in eu-west-1, the
// auto scaling of orders, and FixtureSource as a metric source. Call it once
// per server.
func LoadFixture(s *Server) error {
	for region, tables := range fixtureTables() {
		for _, t := range tables {
			if err := s.PutTable(region, t); err != nil {
				return fmt.Errorf("load fixture: %w", err)
			}
		}
	}
	targets, policies := fixtureScaling()
	for _, t := range targets {
		if err := s.PutScalableTarget(FixtureRegion, t); err != nil {
			return fmt.Errorf("load fixture: %w", err)
		}
	}
	for _, p := range policies {
		if err := s.PutScalingPolicy(FixtureRegion, p); err != nil {
			return fmt.Errorf("load fixture: %w", err)
		}
	}
	s.AddMetricSource(FixtureSource())
	return nil
}

// NewFixture returns a server on clk (clock.Real{} if nil) holding the
// fixture account. It is not started.
func NewFixture(clk clock.Clock) *Server {
	s := New(WithClock(clk))
	if err := LoadFixture(s); err != nil {
		// The fixture is static data; failing to load it is a bug.
		panic(err)
	}
	return s
}
