package capacity

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"
	// The time zone database is embedded so that a scheduled action's
	// Timezone resolves the same on every host: the container image
	// (distroless/static) carries zoneinfo, but a binary copied into a
	// scratch image or onto a minimal host may find none. It adds about
	// 450 KB to the binary.
	_ "time/tzdata"
)

// Schedule expressions of Application Auto Scaling scheduled actions.
// Sources: Application Auto Scaling API reference, PutScheduledAction,
// parameter Schedule ("at(yyyy-mm-ddThh:mm:ss)", "rate(value unit)" with
// value a positive integer and unit minute | minutes | hour | hours | day |
// days, "cron(fields)" with six fields; at and cron read in Timezone, UTC by
// default); Application Auto Scaling user guide, "Schedule recurring scaling
// actions using Application Auto Scaling" (the six fields [Minutes] [Hours]
// [Day_of_Month] [Month] [Day_of_Week] [Year], Timezone an IANA name, start
// and end times bound a recurring action); Amazon EventBridge user guide,
// "Cron expressions reference", which that guide points to for the field
// syntax (minutes 0-59, hours 0-23, day-of-month 1-31, month 1-12 or
// JAN-DEC, day-of-week 1-7 or SUN-SAT with 1 = Sunday, year 1970-2199;
// wildcards , - * / in every field, ? in day-of-month or day-of-week and
// exactly one of the two; L and W in day-of-month, L and # in day-of-week).
//
// Decisions where the documents leave a gap, stated here:
//   - Resolution is the minute: an action runs in the minute its time falls
//     in (an at() expression's seconds only pick the minute).
//   - Start and End bound the recurring kinds (rate, cron), inclusive of
//     Start and exclusive of End; an at() action runs at its time. A
//     recurring action with a Start also runs in Start's minute ("If you
//     specify a start time, Application Auto Scaling performs the action at
//     this time, and then performs the action based on the specified
//     recurrence": the user guide page above).
//   - A rate() action runs every period from Start. Without Start the phase
//     is that of AWS's creation time, which the contract does not carry: the
//     period is counted from 1970-01-01T00:00 UTC (rate(1 day) runs at
//     midnight UTC).
//   - A cron or at time read in a zone with daylight saving time follows the
//     wall clock: a wall-clock time skipped by the spring change does not
//     run, one repeated by the autumn change runs twice.
//   - L, W and # are refused with an error naming the action and the field;
//     a range must not wrap (FRI-MON is refused: write FRI-SAT,SUN-MON).

// Schedule is a parsed scheduled-action expression with its time zone and
// bounds, ready to say in which minutes the action runs.
type Schedule struct {
	kind   scheduleKind
	at     time.Time // kindAt: the minute it runs, UTC
	every  int64     // kindRate: the period in minutes
	anchor int64     // kindRate: a minute (Unix minutes) it runs at
	loc    *time.Location
	start  time.Time
	end    time.Time
	// kindCron: the accepted values of each field as bits.
	minutes        uint64
	hours          uint32
	dom            uint32 // bits 1-31
	months         uint16 // bits 1-12
	dow            uint8  // bits 0-6, 0 = Sunday (cron's 1)
	years          [4]uint64
	domAny, dowAny bool // the field is ?
}

type scheduleKind int

const (
	kindAt scheduleKind = iota
	kindRate
	kindCron
)

// Cron year limits (EventBridge cron expressions reference).
const (
	cronFirstYear = 1970
	cronLastYear  = 2199
)

// ParseSchedule parses the action's Schedule in its Timezone with its Start
// and End bounds. The error names the action and, for a cron expression,
// the field at fault.
func (s ScheduledAction) ParseSchedule() (*Schedule, error) {
	errf := func(format string, args ...any) error {
		return fmt.Errorf("capacity: scheduled action %q: "+format, append([]any{s.Name}, args...)...)
	}
	loc := time.UTC
	if s.Timezone != "" {
		l, err := time.LoadLocation(s.Timezone)
		if err != nil || strings.EqualFold(s.Timezone, "local") {
			return nil, errf("time zone %q is not an IANA time zone name", s.Timezone)
		}
		loc = l
	}
	if !s.Start.IsZero() && !s.End.IsZero() && !s.End.After(s.Start) {
		return nil, errf("end %v is not after start %v", s.End, s.Start)
	}
	if !(s.Min >= 0) || math.IsInf(s.Min, 0) || !(s.Max >= 0) || math.IsInf(s.Max, 0) {
		return nil, errf("min %v and max %v must be finite non-negative numbers", s.Min, s.Max)
	}
	if s.Min > 0 && s.Max > 0 && s.Min > s.Max {
		return nil, errf("min %v is above max %v", s.Min, s.Max)
	}
	sc := &Schedule{loc: loc, start: s.Start.Truncate(time.Minute), end: s.End}
	expr := strings.TrimSpace(s.Schedule)
	open := strings.IndexByte(expr, '(')
	if open < 0 || !strings.HasSuffix(expr, ")") {
		return nil, errf("schedule %q is not at(...), rate(...) or cron(...)", s.Schedule)
	}
	body := strings.TrimSpace(expr[open+1 : len(expr)-1])
	switch expr[:open] {
	case "at":
		t, err := time.ParseInLocation("2006-01-02T15:04:05", body, loc)
		if err != nil {
			return nil, errf("at(%s) is not at(yyyy-mm-ddThh:mm:ss)", body)
		}
		sc.kind, sc.at = kindAt, t.UTC().Truncate(time.Minute)
	case "rate":
		f := strings.Fields(body)
		if len(f) != 2 {
			return nil, errf("rate(%s) is not rate(value unit)", body)
		}
		n, err := strconv.ParseInt(f[0], 10, 32)
		if err != nil || n < 1 {
			return nil, errf("rate value %q is not a positive integer", f[0])
		}
		switch f[1] {
		case "minute", "minutes":
		case "hour", "hours":
			n *= 60
		case "day", "days":
			n *= 1440
		default:
			return nil, errf("rate unit %q is not minute, minutes, hour, hours, day or days", f[1])
		}
		sc.kind, sc.every = kindRate, n
		if !s.Start.IsZero() {
			sc.anchor = s.Start.Truncate(time.Minute).Unix() / 60
		}
	case "cron":
		if err := sc.parseCron(body); err != nil {
			return nil, errf("%v", err)
		}
		sc.kind = kindCron
	default:
		return nil, errf("schedule %q is not at(...), rate(...) or cron(...)", s.Schedule)
	}
	return sc, nil
}

// Fires reports whether the action runs in the minute that begins at t
// (t is truncated to the minute).
func (sc *Schedule) Fires(t time.Time) bool {
	t = t.Truncate(time.Minute)
	if sc.kind == kindAt {
		return t.Equal(sc.at)
	}
	if !sc.start.IsZero() {
		if t.Before(sc.start) {
			return false
		}
		if t.Equal(sc.start) {
			return true
		}
	}
	if !sc.end.IsZero() && !t.Before(sc.end) {
		return false
	}
	if sc.kind == kindRate {
		m := t.Unix() / 60
		return ((m-sc.anchor)%sc.every+sc.every)%sc.every == 0
	}
	l := t.In(sc.loc)
	y := l.Year()
	if y < cronFirstYear || y > cronLastYear {
		return false
	}
	yi := y - cronFirstYear
	if sc.years[yi/64]&(1<<(yi%64)) == 0 || sc.months&(1<<l.Month()) == 0 ||
		sc.hours&(1<<l.Hour()) == 0 || sc.minutes&(1<<l.Minute()) == 0 {
		return false
	}
	if sc.domAny {
		return sc.dow&(1<<l.Weekday()) != 0
	}
	return sc.dom&(1<<l.Day()) != 0
}

// Runs returns the minutes in [from, to) in which the action runs, at most
// limit of them.
func (sc *Schedule) Runs(from, to time.Time, limit int) []time.Time {
	var out []time.Time
	for t := from.Truncate(time.Minute); t.Before(to) && len(out) < limit; t = t.Add(time.Minute) {
		if sc.Fires(t) {
			out = append(out, t)
		}
	}
	return out
}

var (
	monthNames = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}
	dayNames   = []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}
)

// cronField describes one of the six fields.
type cronField struct {
	name     string
	lo, hi   int
	names    []string // names of lo, lo+1, ...
	question bool     // ? allowed
}

var cronFields = [6]cronField{
	{name: "minutes", lo: 0, hi: 59},
	{name: "hours", lo: 0, hi: 23},
	{name: "day-of-month", lo: 1, hi: 31, question: true},
	{name: "month", lo: 1, hi: 12, names: monthNames},
	{name: "day-of-week", lo: 1, hi: 7, names: dayNames, question: true},
	{name: "year", lo: cronFirstYear, hi: cronLastYear},
}

func (sc *Schedule) parseCron(body string) error {
	f := strings.Fields(body)
	if len(f) != 6 {
		return fmt.Errorf("cron(%s) has %d fields, want 6: minutes hours day-of-month month day-of-week year", body, len(f))
	}
	var sets [6][]bool
	for k, spec := range cronFields {
		set, any, err := spec.parse(f[k])
		if err != nil {
			return fmt.Errorf("cron %s field %q: %w", spec.name, f[k], err)
		}
		if any {
			if k == 2 {
				sc.domAny = true
			} else {
				sc.dowAny = true
			}
		}
		sets[k] = set
	}
	if sc.domAny == sc.dowAny {
		return fmt.Errorf("cron day-of-month %q and day-of-week %q: exactly one of them must be ?", f[2], f[4])
	}
	for v, ok := range sets[0] {
		if ok {
			sc.minutes |= 1 << v
		}
	}
	for v, ok := range sets[1] {
		if ok {
			sc.hours |= 1 << v
		}
	}
	for v, ok := range sets[2] {
		if ok {
			sc.dom |= 1 << (v + 1)
		}
	}
	for v, ok := range sets[3] {
		if ok {
			sc.months |= 1 << (v + 1)
		}
	}
	for v, ok := range sets[4] {
		if ok {
			sc.dow |= 1 << v // cron 1 (SUN) is time.Sunday (0)
		}
	}
	for v, ok := range sets[5] {
		if ok {
			sc.years[v/64] |= 1 << (v % 64)
		}
	}
	n := bits.OnesCount64(sc.years[0]) + bits.OnesCount64(sc.years[1]) + bits.OnesCount64(sc.years[2]) + bits.OnesCount64(sc.years[3])
	if n == 0 {
		return fmt.Errorf("cron(%s) matches no year", body)
	}
	return nil
}

// parse returns the values of the field (index v for value lo+v) and
// whether it is ?.
func (c cronField) parse(s string) ([]bool, bool, error) {
	if s == "?" {
		if !c.question {
			return nil, false, fmt.Errorf("? is allowed only in day-of-month and day-of-week")
		}
		return nil, true, nil
	}
	if strings.ContainsAny(s, "LW#") && !c.hasName(s) {
		return nil, false, fmt.Errorf("L, W and # are not supported")
	}
	set := make([]bool, c.hi-c.lo+1)
	for part := range strings.SplitSeq(s, ",") {
		rng, stepText, hasStep := strings.Cut(part, "/")
		step := 1
		if hasStep {
			n, err := strconv.Atoi(stepText)
			if err != nil || n < 1 {
				return nil, false, fmt.Errorf("step %q is not a positive integer", stepText)
			}
			step = n
		}
		lo, hi := c.lo, c.hi
		switch {
		case rng == "*":
		case strings.Contains(rng, "-"):
			a, b, _ := strings.Cut(rng, "-")
			var err error
			if lo, err = c.value(a); err != nil {
				return nil, false, err
			}
			if hi, err = c.value(b); err != nil {
				return nil, false, err
			}
			if lo > hi {
				return nil, false, fmt.Errorf("range %s wraps around (from %d above to %d)", rng, lo, hi)
			}
		default:
			v, err := c.value(rng)
			if err != nil {
				return nil, false, err
			}
			lo = v
			if !hasStep {
				hi = v
			}
		}
		for v := lo; v <= hi; v += step {
			set[v-c.lo] = true
		}
	}
	return set, false, nil
}

// hasName reports whether s, which contains L, W or #, is only made of the
// field's names (JUL holds an L, WED a W) and cron punctuation.
func (c cronField) hasName(s string) bool {
	if strings.Contains(s, "#") || len(c.names) == 0 {
		return false
	}
	rest := strings.ToUpper(s)
	for _, n := range c.names {
		rest = strings.ReplaceAll(rest, n, "")
	}
	return !strings.ContainsAny(rest, "LW")
}

// value parses one value: a number or a name.
func (c cronField) value(s string) (int, error) {
	for k, n := range c.names {
		if strings.EqualFold(s, n) {
			return c.lo + k, nil
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number (or a name) of the field", s)
	}
	if v < c.lo || v > c.hi {
		return 0, fmt.Errorf("%d is outside %d-%d", v, c.lo, c.hi)
	}
	return v, nil
}
