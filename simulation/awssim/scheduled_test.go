package awssim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	aas "github.com/aws/aws-sdk-go-v2/service/applicationautoscaling"
	"github.com/aws/aws-sdk-go-v2/service/applicationautoscaling/types"
)

func TestDescribeScheduledActionsFiltersAndPages(t *testing.T) {
	s, _ := fixture(t, t0)
	put := func(name, dim, sched string, minC, maxC *int32) {
		t.Helper()
		if err := s.PutScheduledAction("us-east-1", ScheduledAction{ScheduledActionName: name, ResourceID: "table/orders",
			ScalableDimension: dim, Schedule: sched, MinCapacity: minC, MaxCapacity: maxC}); err != nil {
			t.Fatal(err)
		}
	}
	put("evening-up", DimTableWrite, "cron(15 19 * * ? *)", aws.Int32(300), nil)
	put("evening-down", DimTableWrite, "cron(45 20 * * ? *)", aws.Int32(25), aws.Int32(200))
	put("read-up", DimTableRead, "rate(1 day)", nil, aws.Int32(500))

	c := clientsFor(s, cfg("us-east-1")).aas
	ctx := context.Background()
	var all []types.ScheduledAction
	pages := 0
	p := aas.NewDescribeScheduledActionsPaginator(c, &aas.DescribeScheduledActionsInput{ServiceNamespace: types.ServiceNamespaceDynamodb, MaxResults: aws.Int32(2)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		all = append(all, out.ScheduledActions...)
	}
	if pages != 2 || len(all) != 3 {
		t.Fatalf("pages %d, actions %d; want 2 and 3", pages, len(all))
	}
	out, err := c.DescribeScheduledActions(ctx, &aas.DescribeScheduledActionsInput{ServiceNamespace: types.ServiceNamespaceDynamodb,
		ResourceId: aws.String("table/orders"), ScalableDimension: types.ScalableDimensionDynamoDBTableWriteCapacityUnits})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.ScheduledActions) != 2 {
		t.Fatalf("filtered: %d actions", len(out.ScheduledActions))
	}
	up := out.ScheduledActions[1]
	if aws.ToString(up.ScheduledActionName) != "evening-up" || aws.ToString(up.Schedule) != "cron(15 19 * * ? *)" ||
		aws.ToInt32(up.ScalableTargetAction.MinCapacity) != 300 || up.ScalableTargetAction.MaxCapacity != nil ||
		!strings.Contains(aws.ToString(up.ScheduledActionARN), ":scheduledActionName/evening-up") || !up.CreationTime.Equal(t0) {
		t.Fatalf("action %+v", up)
	}
	_, err = c.DescribeScheduledActions(ctx, &aas.DescribeScheduledActionsInput{ServiceNamespace: types.ServiceNamespaceDynamodb, ScalableDimension: types.ScalableDimensionDynamoDBTableReadCapacityUnits})
	wantAPIError(t, err, "ValidationException")
	_, err = c.DescribeScheduledActions(ctx, &aas.DescribeScheduledActionsInput{ServiceNamespace: types.ServiceNamespaceDynamodb, MaxResults: aws.Int32(51)})
	wantAPIError(t, err, "ValidationException")
	ecs, err := c.DescribeScheduledActions(ctx, &aas.DescribeScheduledActionsInput{ServiceNamespace: types.ServiceNamespaceEcs})
	if err != nil || len(ecs.ScheduledActions) != 0 {
		t.Fatalf("other namespace: %v %v", err, ecs)
	}

	s.Deny("application-autoscaling:DescribeScheduledActions")
	_, err = c.DescribeScheduledActions(ctx, &aas.DescribeScheduledActionsInput{ServiceNamespace: types.ServiceNamespaceDynamodb})
	wantAPIError(t, err, "AccessDeniedException")

	if s.DeleteTable("us-east-1", "orders"); len(s.region("us-east-1").actions) != 0 {
		t.Fatal("deleting the table kept its scheduled actions")
	}
}

func TestPutScheduledActionValidates(t *testing.T) {
	s, _ := fixture(t, t0)
	for _, c := range []struct {
		a    ScheduledAction
		want string
	}{
		{ScheduledAction{ScheduledActionName: "x", ResourceID: "table/orders", ScalableDimension: DimTableWrite, Schedule: "cron(0 19 * * * *)", MinCapacity: aws.Int32(1)}, "Day-of-month and Day-of-week"},
		{ScheduledAction{ScheduledActionName: "x", ResourceID: "table/orders", ScalableDimension: DimTableWrite, Schedule: "cron(0 19 L * ? *)", MinCapacity: aws.Int32(1)}, "Day-of-month"},
		{ScheduledAction{ScheduledActionName: "x", ResourceID: "table/orders", ScalableDimension: DimTableWrite, Schedule: "rate(5 weeks)", MinCapacity: aws.Int32(1)}, "'schedule'"},
		{ScheduledAction{ScheduledActionName: "x", ResourceID: "table/orders", ScalableDimension: DimTableWrite, Schedule: "cron(0 19 * * ? *)", Timezone: "Mars/Olympus", MinCapacity: aws.Int32(1)}, "'timezone'"},
		{ScheduledAction{ScheduledActionName: "x", ResourceID: "table/orders", ScalableDimension: DimTableWrite, Schedule: "cron(0 19 * * ? *)"}, "MinCapacity, MaxCapacity or both"},
		{ScheduledAction{ScheduledActionName: "a/b", ResourceID: "table/orders", ScalableDimension: DimTableWrite, Schedule: "cron(0 19 * * ? *)", MinCapacity: aws.Int32(1)}, "scheduledActionName"},
		{ScheduledAction{ScheduledActionName: "x", ResourceID: "table/sessions", ScalableDimension: DimTableWrite, Schedule: "cron(0 19 * * ? *)", MinCapacity: aws.Int32(1)}, "No scalable target"},
	} {
		err := s.PutScheduledAction("us-east-1", c.a)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error naming %q", c.a.Schedule, err, c.want)
		}
	}
}

func TestScheduleDue(t *testing.T) {
	at := func(s string) time.Time { v, _ := time.Parse(time.RFC3339, s); return v }
	parse := func(expr, tz string, start, end time.Time) *Schedule {
		t.Helper()
		s, err := ParseSchedule(expr, tz, start, end, at("2025-01-01T00:00:00Z"))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, c := range []struct {
		s    *Schedule
		m    string
		want bool
	}{
		{parse("cron(15 19 * * ? *)", "", time.Time{}, time.Time{}), "2025-03-12T19:15:00Z", true},
		{parse("cron(15 19 * * ? *)", "", time.Time{}, time.Time{}), "2025-03-12T19:16:00Z", false},
		{parse("cron(15 19 * * ? *)", "Europe/Paris", time.Time{}, time.Time{}), "2025-03-12T18:15:00Z", true}, // CET, UTC+1
		{parse("cron(0 18 ? * MON-FRI *)", "", time.Time{}, time.Time{}), "2025-03-14T18:00:00Z", true},        // a Friday
		{parse("cron(0 18 ? * MON-FRI *)", "", time.Time{}, time.Time{}), "2025-03-15T18:00:00Z", false},       // a Saturday
		{parse("cron(0 18 ? * 1 *)", "", time.Time{}, time.Time{}), "2025-03-16T18:00:00Z", true},              // 1 = Sunday
		{parse("cron(0/15 * * * ? *)", "", time.Time{}, time.Time{}), "2025-03-16T18:45:00Z", true},
		{parse("cron(0/15 * * * ? *)", "", time.Time{}, time.Time{}), "2025-03-16T18:40:00Z", false},
		{parse("cron(0 8 1 JAN,JUL ? 2025)", "", time.Time{}, time.Time{}), "2025-07-01T08:00:00Z", true},
		{parse("cron(0 8 1 JAN,JUL ? 2025)", "", time.Time{}, time.Time{}), "2026-07-01T08:00:00Z", false},
		{parse("at(2025-03-12T19:15:30)", "", time.Time{}, time.Time{}), "2025-03-12T19:15:00Z", true},
		{parse("rate(6 hours)", "", time.Time{}, time.Time{}), "2025-01-02T06:00:00Z", true},
		{parse("rate(6 hours)", "", time.Time{}, time.Time{}), "2025-01-02T07:00:00Z", false},
		// Bounds: nothing before the start, a run at the start, nothing after the end.
		{parse("cron(15 19 * * ? *)", "", at("2025-03-12T12:00:00Z"), at("2025-03-20T00:00:00Z")), "2025-03-11T19:15:00Z", false},
		{parse("cron(15 19 * * ? *)", "", at("2025-03-12T12:00:00Z"), at("2025-03-20T00:00:00Z")), "2025-03-12T12:00:00Z", true},
		{parse("cron(15 19 * * ? *)", "", at("2025-03-12T12:00:00Z"), at("2025-03-20T00:00:00Z")), "2025-03-19T19:15:00Z", true},
		{parse("cron(15 19 * * ? *)", "", at("2025-03-12T12:00:00Z"), at("2025-03-20T00:00:00Z")), "2025-03-20T19:15:00Z", false},
	} {
		if got := c.s.Due(at(c.m)); got != c.want {
			t.Errorf("%+v at %s: %v, want %v", c.s.kind, c.m, got, c.want)
		}
	}
}
