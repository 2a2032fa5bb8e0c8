package capacity

import (
	"strings"
	"testing"
	"time"
)

func utc(y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, time.UTC)
}

// runs lists the minutes an action runs in [from, to), formatted in UTC.
func runs(t *testing.T, a ScheduledAction, from, to time.Time) []string {
	t.Helper()
	sc, err := a.ParseSchedule()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range sc.Runs(from, to, 100) {
		out = append(out, r.UTC().Format("2006-01-02 Mon 15:04"))
	}
	return out
}

// Known answers, worked out by hand from the calendar: 2026-12-02 is a
// Wednesday.
func TestScheduleKnownAnswers(t *testing.T) {
	from := utc(2026, 11, 29, 0, 0) // Sunday
	week := from.Add(7 * 24 * time.Hour)
	for _, c := range []struct {
		name     string
		a        ScheduledAction
		from, to time.Time
		want     string
	}{
		{"daily UTC", ScheduledAction{Schedule: "cron(25 19 * * ? *)"}, from, from.Add(3 * 24 * time.Hour),
			"2026-11-29 Sun 19:25,2026-11-30 Mon 19:25,2026-12-01 Tue 19:25"},
		// Day-of-week 2-6 is MON-FRI (1 = SUN).
		{"weekdays by number", ScheduledAction{Schedule: "cron(0 18 ? * 2-6 *)"}, from, week,
			"2026-11-30 Mon 18:00,2026-12-01 Tue 18:00,2026-12-02 Wed 18:00,2026-12-03 Thu 18:00,2026-12-04 Fri 18:00"},
		{"weekend by name, list", ScheduledAction{Schedule: "cron(0 9 ? * SAT,sun *)"}, from, week,
			"2026-11-29 Sun 09:00,2026-12-05 Sat 09:00"},
		{"steps", ScheduledAction{Schedule: "cron(0/20 10 * * ? *)"}, from, from.Add(24 * time.Hour),
			"2026-11-29 Sun 10:00,2026-11-29 Sun 10:20,2026-11-29 Sun 10:40"},
		{"range with step", ScheduledAction{Schedule: "cron(5 1-7/3 * * ? *)"}, from, from.Add(24 * time.Hour),
			"2026-11-29 Sun 01:05,2026-11-29 Sun 04:05,2026-11-29 Sun 07:05"},
		{"day of month, month name, year", ScheduledAction{Schedule: "cron(0 8 1 DEC ? 2026)"}, from, week,
			"2026-12-01 Tue 08:00"},
		{"other year", ScheduledAction{Schedule: "cron(0 8 1 DEC ? 2027)"}, from, week, ""},
		// 19:30 in New York (EST, UTC-5 in December) is 00:30 UTC the next day.
		{"time zone", ScheduledAction{Schedule: "cron(30 19 ? * MON *)", Timezone: "America/New_York"}, from, week,
			"2026-12-01 Tue 00:30"},
		{"at", ScheduledAction{Schedule: "at(2026-12-02T19:25:40)"}, from, week, "2026-12-02 Wed 19:25"},
		{"at in a zone", ScheduledAction{Schedule: "at(2026-12-02T09:00:00)", Timezone: "Europe/Paris"}, from, week,
			"2026-12-02 Wed 08:00"},
		// rate: from Start, Start's minute included; End excluded.
		{"rate from start", ScheduledAction{Schedule: "rate(8 hours)", Start: utc(2026, 11, 29, 3, 10), End: utc(2026, 11, 30, 3, 10)},
			from, week, "2026-11-29 Sun 03:10,2026-11-29 Sun 11:10,2026-11-29 Sun 19:10"},
		{"rate without start", ScheduledAction{Schedule: "rate(1 day)"}, from, from.Add(48 * time.Hour),
			"2026-11-29 Sun 00:00,2026-11-30 Mon 00:00"},
		// A recurring action also runs at its Start.
		{"cron bounded", ScheduledAction{Schedule: "cron(0 12 * * ? *)", Start: utc(2026, 11, 30, 6, 0), End: utc(2026, 12, 2, 12, 0)},
			from, week, "2026-11-30 Mon 06:00,2026-11-30 Mon 12:00,2026-12-01 Tue 12:00"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := strings.Join(runs(t, c.a, c.from, c.to), ","); got != c.want {
				t.Errorf("runs = %s, want %s", got, c.want)
			}
		})
	}
}

// Daylight saving time: 2026-03-29 Europe/Paris skips 02:00-03:00 and
// 2026-10-25 repeats 02:00-03:00.
func TestScheduleDaylightSaving(t *testing.T) {
	a := ScheduledAction{Schedule: "cron(30 2 * * ? *)", Timezone: "Europe/Paris"}
	if got := runs(t, a, utc(2026, 3, 28, 0, 0), utc(2026, 3, 30, 0, 0)); strings.Join(got, ",") != "2026-03-28 Sat 01:30" {
		t.Errorf("spring: %v, want only the 28th (01:30 UTC, CET)", got)
	}
	if got := runs(t, a, utc(2026, 10, 25, 0, 0), utc(2026, 10, 26, 0, 0)); strings.Join(got, ",") != "2026-10-25 Sun 00:30,2026-10-25 Sun 01:30" {
		t.Errorf("autumn: %v, want twice (CEST then CET)", got)
	}
}

func TestScheduleErrors(t *testing.T) {
	for _, c := range []struct {
		a    ScheduledAction
		want string
	}{
		{ScheduledAction{Schedule: "cron(0 18 ? * MON-FRI)"}, "has 5 fields"},
		{ScheduledAction{Schedule: "cron(0 18 * * MON *)"}, "exactly one of them must be ?"},
		{ScheduledAction{Schedule: "cron(0 18 ? * ? *)"}, "exactly one of them must be ?"},
		{ScheduledAction{Schedule: "cron(60 18 * * ? *)"}, `minutes field "60": 60 is outside 0-59`},
		{ScheduledAction{Schedule: "cron(0 24 * * ? *)"}, "hours field"},
		{ScheduledAction{Schedule: "cron(0 18 L * ? *)"}, `day-of-month field "L": L, W and # are not supported`},
		{ScheduledAction{Schedule: "cron(0 18 15W * ? *)"}, "day-of-month field"},
		{ScheduledAction{Schedule: "cron(0 18 ? * 6#3 *)"}, `day-of-week field "6#3": L, W and # are not supported`},
		{ScheduledAction{Schedule: "cron(0 18 ? * FRI-MON *)"}, "wraps around"},
		{ScheduledAction{Schedule: "cron(0 18 ? * 8 *)"}, "day-of-week field"},
		{ScheduledAction{Schedule: "cron(0/0 18 * * ? *)"}, "step"},
		{ScheduledAction{Schedule: "cron(? 18 * * ? *)"}, "? is allowed only"},
		{ScheduledAction{Schedule: "cron(0 18 * * ? 1969)"}, "year field"},
		{ScheduledAction{Schedule: "rate(0 minutes)"}, "not a positive integer"},
		{ScheduledAction{Schedule: "rate(5 weeks)"}, "rate unit"},
		{ScheduledAction{Schedule: "rate(5)"}, "rate(value unit)"},
		{ScheduledAction{Schedule: "at(2026-12-02 19:25:00)"}, "at(yyyy-mm-ddThh:mm:ss)"},
		{ScheduledAction{Schedule: "every day"}, "is not at(...)"},
		{ScheduledAction{Schedule: "cron(0 8 * * ? *)", Timezone: "Mars/Olympus"}, "not an IANA time zone"},
		{ScheduledAction{Schedule: "rate(1 hour)", Start: utc(2026, 1, 2, 0, 0), End: utc(2026, 1, 1, 0, 0)}, "not after start"},
		{ScheduledAction{Schedule: "rate(1 hour)", Min: 10, Max: 5}, "above max"},
	} {
		c.a.Name = "evening-peak"
		_, err := c.a.ParseSchedule()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `"evening-peak"`) {
			t.Errorf("%+v: error %v, want one naming the action and containing %q", c.a, err, c.want)
		}
	}
	// JUL holds an L and WED a W: names are not the refused characters.
	for _, s := range []string{"cron(0 8 ? JUL WED *)", "cron(0 8 ? jun-jul wed,thu *)"} {
		if _, err := (ScheduledAction{Name: "x", Schedule: s}).ParseSchedule(); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

func TestValidateChecksScheduledActions(t *testing.T) {
	a := DefaultAutoScaling()
	a.Scheduled = []ScheduledAction{{Name: "ok", Schedule: "cron(0 8 * * ? *)", Min: 10}, {Name: "bad", Schedule: "cron(0 8 * * * *)"}}
	err := a.Validate()
	if err == nil || !strings.Contains(err.Error(), `"bad"`) || !strings.Contains(err.Error(), "Scheduled[1]") {
		t.Fatalf("Validate() = %v, want the second action named", err)
	}
	a.Scheduled = a.Scheduled[:1]
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
}

// Malformed expressions get an error, never a panic, and a valid one a
// schedule whose Fires answers for any time.
func TestScheduleMalformed(t *testing.T) {
	for _, s := range []string{"", "(", ")", "cron", "cron(", "cron()", "cron( )", "at()", "rate()", "rate( )",
		"rate(-1 minutes)", "rate(99999999999 days)", "cron(1- * * * ? *)", "cron(-1 * * * ? *)", "cron(/5 * * * ? *)",
		"cron(5/ * * * ? *)", "cron(,, * * * ? *)", "cron(* * * * ? * *)", "cron(* * 0 * ? *)", "cron(* * 32 * ? *)",
		"cron(* * ? 13 MON *)", "cron(* * ? * 0 *)", "cron(* * ? * MON#9 *)", "cron(* * ? * LW *)", "cron(* * * * ? 2200)",
		"cron(* * * FOO ? *)", "at(2026-02-30T00:00:00)", "at(2026-12-02T25:00:00)", "RATE(1 minute)", "cron(* * * * ? *"} {
		a := ScheduledAction{Name: "x", Schedule: s}
		if _, err := a.ParseSchedule(); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
	sc, err := ScheduledAction{Name: "x", Schedule: "cron(* * * * ? *)"}.ParseSchedule()
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []time.Time{{}, time.Unix(-1e12, 0), time.Date(2199, 12, 31, 23, 59, 0, 0, time.UTC), time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)} {
		_ = sc.Fires(at)
	}
	if !sc.Fires(time.Date(2199, 12, 31, 23, 59, 0, 0, time.UTC)) || sc.Fires(time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Error("every minute of 1970-2199, none after")
	}
}
