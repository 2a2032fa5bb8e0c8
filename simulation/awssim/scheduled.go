package awssim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Scheduled actions of Application Auto Scaling, restated from AWS's
// documentation (Application Auto Scaling user guide, "How scheduled scaling
// for Application Auto Scaling works" and "Schedule recurring scaling
// actions using Application Auto Scaling"; API reference, PutScheduledAction
// and DescribeScheduledActions; EventBridge user guide, "Cron expressions
// reference", for the cron syntax):
//
//   - An action belongs to a scalable target (resource ID and scalable
//     dimension) and names a schedule, an optional time zone (IANA; default
//     UTC), optional StartTime and EndTime (UTC) and a ScalableTargetAction
//     with a new MinCapacity, MaxCapacity or both.
//   - At each time the schedule names, the scalable target's minimum and
//     maximum become the action's; if the current capacity is below the new
//     minimum, Application Auto Scaling scales out to it; if above the new
//     maximum, it scales in to it. Scaling policies then act within the new
//     bounds. Nothing is restored after the action: a later action must
//     set the bounds back.
//   - Schedules: at(yyyy-mm-ddThh:mm:ss) once; rate(value unit) with unit
//     minute(s), hour(s) or day(s); cron(minutes hours day-of-month month
//     day-of-week year), in the action's time zone.
//   - "If you specify a start time, Application Auto Scaling performs the
//     action at this time, and then performs the action based on the
//     specified recurrence"; after the end time it no longer runs.
//
// The simulator supports, in cron fields: numbers, names of months
// (JAN-DEC) and days (SUN-SAT, 1 = SUN), '*', '?', ranges 'a-b', lists 'a,b'
// and increments 'a/n' or '*/n'. It rejects 'L', 'W' and '#' with a
// ValidationException naming the field: no scenario needs them.

// ScheduledAction is an Application Auto Scaling scheduled action on a
// DynamoDB scalable target.
type ScheduledAction struct {
	ScheduledActionName string
	ResourceID          string // table/NAME or table/NAME/index/INDEX
	ScalableDimension   string
	Schedule            string // at(...), rate(...) or cron(...)
	Timezone            string // IANA name; "" is UTC
	StartTime, EndTime  time.Time
	// MinCapacity and MaxCapacity are the bounds the action sets; nil
	// leaves that bound as it is.
	MinCapacity, MaxCapacity *int32
	CreationTime             time.Time // default: the server clock
}

// Schedule is a parsed schedule expression in its time zone, bounded by the
// action's start and end times: [Schedule.Due] says whether it runs in a
// minute.
type Schedule struct {
	kind       byte // 'a' at, 'r' rate, 'c' cron
	at         time.Time
	every      time.Duration
	base       time.Time // rate: the first run
	loc        *time.Location
	start, end time.Time
	fields     [6]cronField
}

// cronField is the set of values a cron field matches; any marks '?'.
type cronField struct {
	set [4]uint64 // bit v-lo
	lo  int
	any bool
}

func (f *cronField) has(v int) bool {
	if f.any {
		return true
	}
	i := v - f.lo
	return i >= 0 && i < 256 && f.set[i/64]&(1<<(i%64)) != 0
}

// cronSpec names each cron field, its bounds and its value names.
var cronSpec = [6]struct {
	name   string
	lo, hi int
	names  []string
}{
	{"Minutes", 0, 59, nil},
	{"Hours", 0, 23, nil},
	{"Day-of-month", 1, 31, nil},
	{"Month", 1, 12, []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}},
	{"Day-of-week", 1, 7, []string{"SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"}},
	{"Year", 1970, 2199, nil},
}

// scheduleErr is the ValidationException of a bad schedule.
func scheduleErr(format string, args ...any) error {
	return apiErr(ErrValidation, "1 validation error detected: Value at 'schedule' failed to satisfy constraint: "+fmt.Sprintf(format, args...))
}

// ParseSchedule parses a scheduled action's schedule expression in time
// zone tz ("" is UTC), bounded by start and end (zero: unbounded). rate()
// counts from start or, without it, from created. Errors are
// ValidationExceptions naming the field (schedule or timezone).
func ParseSchedule(expr, tz string, start, end, created time.Time) (*Schedule, error) {
	s := &Schedule{loc: time.UTC, start: start, end: end}
	if tz != "" {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return nil, apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%s' at 'timezone' failed to satisfy constraint: Member must be a canonical IANA time zone name", tz))
		}
		s.loc = loc
	}
	if !end.IsZero() && !start.IsZero() && end.Before(start) {
		return nil, apiErr(ErrValidation, "EndTime must be after StartTime")
	}
	open, closeP := strings.IndexByte(expr, '('), strings.LastIndexByte(expr, ')')
	if open < 0 || closeP != len(expr)-1 {
		return nil, scheduleErr("%q is not at(...), rate(...) or cron(...)", expr)
	}
	body := expr[open+1 : closeP]
	switch expr[:open] {
	case "at":
		t, err := time.ParseInLocation("2006-01-02T15:04:05", body, s.loc)
		if err != nil {
			return nil, scheduleErr("at(%s) is not yyyy-mm-ddThh:mm:ss", body)
		}
		s.kind, s.at = 'a', t
	case "rate":
		f := strings.Fields(body)
		if len(f) != 2 {
			return nil, scheduleErr("rate(%s) is not rate(value unit)", body)
		}
		n, err := strconv.Atoi(f[0])
		if err != nil || n < 1 {
			return nil, scheduleErr("rate(%s): the value must be a positive integer", body)
		}
		unit := map[string]time.Duration{"minute": time.Minute, "minutes": time.Minute, "hour": time.Hour, "hours": time.Hour, "day": 24 * time.Hour, "days": 24 * time.Hour}[f[1]]
		if unit == 0 {
			return nil, scheduleErr("rate(%s): the unit must be minute(s), hour(s) or day(s)", body)
		}
		s.kind, s.every, s.base = 'r', time.Duration(n)*unit, created
		if !start.IsZero() {
			s.base = start
		}
	case "cron":
		f := strings.Fields(body)
		if len(f) != 6 {
			return nil, scheduleErr("cron(%s) needs 6 fields (minutes hours day-of-month month day-of-week year), got %d", body, len(f))
		}
		for i, v := range f {
			cf, err := parseCronField(i, v)
			if err != nil {
				return nil, err
			}
			s.fields[i] = cf
		}
		// "You can't specify the Day-of-month and Day-of-week fields in
		// the same cron expression. If you specify a value or a * in one
		// of the fields, you must use a ? in the other." (EventBridge).
		if s.fields[2].any == s.fields[4].any {
			return nil, scheduleErr("cron(%s): exactly one of Day-of-month and Day-of-week must be '?'", body)
		}
		s.kind = 'c'
	default:
		return nil, scheduleErr("%q is not at(...), rate(...) or cron(...)", expr)
	}
	return s, nil
}

func parseCronField(i int, v string) (cronField, error) {
	sp := cronSpec[i]
	f := cronField{lo: sp.lo}
	bad := func(why string) (cronField, error) {
		return cronField{}, scheduleErr("cron field %s %q: %s", sp.name, v, why)
	}
	if v == "?" {
		if i != 2 && i != 4 {
			return bad("'?' is allowed only in Day-of-month and Day-of-week")
		}
		f.any = true
		return f, nil
	}
	if strings.Contains(v, "#") || strings.ContainsAny(v, "LW") && !slices.ContainsFunc(sp.names, func(n string) bool { return strings.Contains(strings.ToUpper(v), n) }) {
		return bad("'L', 'W' and '#' are not supported by the simulator")
	}
	num := func(s string) (int, bool) {
		if k := slices.Index(sp.names, strings.ToUpper(s)); k >= 0 {
			return sp.lo + k, true
		}
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= sp.lo && n <= sp.hi
	}
	for _, part := range strings.Split(v, ",") {
		rng, step := part, 1
		if k := strings.IndexByte(part, '/'); k >= 0 {
			n, err := strconv.Atoi(part[k+1:])
			if err != nil || n < 1 {
				return bad("the increment must be a positive integer")
			}
			rng, step = part[:k], n
		}
		a, b := sp.lo, sp.hi
		switch {
		case rng == "*":
		case strings.Contains(rng, "-"):
			x, y, _ := strings.Cut(rng, "-")
			var ok1, ok2 bool
			a, ok1 = num(x)
			b, ok2 = num(y)
			if !ok1 || !ok2 || b < a {
				return bad(fmt.Sprintf("not a range within %d-%d", sp.lo, sp.hi))
			}
		default:
			n, ok := num(rng)
			if !ok {
				return bad(fmt.Sprintf("not a value within %d-%d", sp.lo, sp.hi))
			}
			a = n
			if step == 1 {
				b = n
			}
		}
		for x := a; x <= b; x += step {
			k := x - sp.lo
			f.set[k/64] |= 1 << (k % 64)
		}
	}
	return f, nil
}

// Due reports whether the schedule runs in the minute starting at m (any
// second of it).
func (s *Schedule) Due(m time.Time) bool {
	m = m.Truncate(time.Minute)
	next := m.Add(time.Minute)
	if !s.end.IsZero() && m.After(s.end) {
		return false
	}
	if !s.start.IsZero() {
		if next.Before(s.start) || next.Equal(s.start) {
			return false
		}
		if !s.start.Before(m) { // the run at the start time
			return true
		}
	}
	switch s.kind {
	case 'a':
		return !s.at.Before(m) && s.at.Before(next)
	case 'r':
		if m.Before(s.base.Truncate(time.Minute)) {
			return false
		}
		d := m.Sub(s.base.Truncate(time.Minute))
		return d%s.every == 0
	}
	l := m.In(s.loc)
	if !s.fields[0].has(l.Minute()) || !s.fields[1].has(l.Hour()) || !s.fields[3].has(int(l.Month())) || !s.fields[5].has(l.Year()) {
		return false
	}
	return s.fields[2].has(l.Day()) && s.fields[4].has(int(l.Weekday())+1)
}

// PutScheduledAction creates or replaces a scheduled action in region. Its
// scalable target must exist; the schedule and time zone must parse; at
// least one of MinCapacity and MaxCapacity is set, and MinCapacity does not
// exceed MaxCapacity when both are.
func (s *Server) PutScheduledAction(region string, a ScheduledAction) error {
	if err := checkDimension(a.ResourceID, a.ScalableDimension); err != nil {
		return fmt.Errorf("awssim: put scheduled action: %w", err)
	}
	if a.ScheduledActionName == "" || len(a.ScheduledActionName) > 256 || strings.ContainsAny(a.ScheduledActionName, ":/|") {
		return apiErr(ErrValidation, fmt.Sprintf("1 validation error detected: Value '%s' at 'scheduledActionName' failed to satisfy constraint: 1 to 256 characters without ':', '/' or '|'", a.ScheduledActionName))
	}
	if a.MinCapacity == nil && a.MaxCapacity == nil {
		return apiErr(ErrValidation, "scalableTargetAction: specify MinCapacity, MaxCapacity or both")
	}
	if a.MinCapacity != nil && a.MaxCapacity != nil && *a.MinCapacity > *a.MaxCapacity {
		return apiErr(ErrValidation, "scalableTargetAction: MinCapacity must not exceed MaxCapacity")
	}
	if (a.MinCapacity != nil && *a.MinCapacity < 0) || (a.MaxCapacity != nil && *a.MaxCapacity < 0) {
		return apiErr(ErrValidation, "scalableTargetAction: capacities must not be negative")
	}
	if a.CreationTime.IsZero() {
		a.CreationTime = s.now()
	}
	if _, err := ParseSchedule(a.Schedule, a.Timezone, a.StartTime, a.EndTime, a.CreationTime); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.region(region)
	key := a.ResourceID + " " + a.ScalableDimension
	if r.targets[key] == nil {
		return apiErr(ErrResourceNotFound, fmt.Sprintf("No scalable target registered for service namespace: dynamodb, resource ID: %s, scalable dimension: %s", a.ResourceID, a.ScalableDimension))
	}
	r.actions[key+" "+a.ScheduledActionName] = &a
	return nil
}

// SetScalableTargetBounds sets a scalable target's minimum and maximum, as
// a scheduled action does when it runs.
func (s *Server) SetScalableTargetBounds(region, resourceID, dim string, minCap, maxCap int32) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.region(region).targets[resourceID+" "+dim]
	if t == nil {
		return apiErr(ErrResourceNotFound, fmt.Sprintf("No scalable target registered for %s %s", resourceID, dim))
	}
	t.MinCapacity, t.MaxCapacity = minCap, maxCap
	return nil
}

// Wire shapes of DescribeScheduledActions.
type (
	aasScalableTargetAction struct {
		MinCapacity *int32 `json:",omitempty"`
		MaxCapacity *int32 `json:",omitempty"`
	}
	aasScheduledAction struct {
		ScheduledActionName  string
		ScheduledActionARN   string
		ServiceNamespace     string
		Schedule             string
		Timezone             string `json:",omitempty"`
		ResourceId           string
		ScalableDimension    string
		StartTime            *float64 `json:",omitempty"`
		EndTime              *float64 `json:",omitempty"`
		ScalableTargetAction aasScalableTargetAction
		CreationTime         float64
	}
)

func (c *call) aasDescribeScheduledActions() (any, error) {
	var in struct {
		ScheduledActionNames []string
		ServiceNamespace     string
		ResourceId           string
		ScalableDimension    string
		MaxResults           *int32
		NextToken            string
	}
	if err := c.decodeJSON(&in); err != nil {
		return nil, err
	}
	if err := c.admit("", tablesOf(in.ResourceId)...); err != nil {
		return nil, err
	}
	size, err := aasPage(in.ServiceNamespace, in.MaxResults, 50)
	if err != nil {
		return nil, err
	}
	if in.ScalableDimension != "" && in.ResourceId == "" {
		return nil, apiErr(ErrValidation, "If you specify a scalable dimension, you must also specify a resource ID.")
	}
	s := c.srv
	s.mu.Lock()
	defer s.mu.Unlock()
	r := s.region(c.region)
	out := struct {
		ScheduledActions []aasScheduledAction
		NextToken        string `json:",omitempty"`
	}{ScheduledActions: []aasScheduledAction{}}
	if in.ServiceNamespace != "dynamodb" {
		return out, nil
	}
	keys := aasKeys(r.actions, in.ScheduledActionNames, in.ResourceId, in.ScalableDimension, func(a *ScheduledAction) [3]string {
		return [3]string{a.ScheduledActionName, a.ResourceID, a.ScalableDimension}
	})
	page, next, err := pageAfter(keys, in.NextToken, size)
	if err != nil {
		return nil, err
	}
	for _, k := range page {
		a := r.actions[k]
		id := stableUUID(c.region + k)
		out.ScheduledActions = append(out.ScheduledActions, aasScheduledAction{
			ScheduledActionName:  a.ScheduledActionName,
			ScheduledActionARN:   fmt.Sprintf("arn:aws:autoscaling:%s:%s:scheduledAction:%s:resource/dynamodb/%s:scheduledActionName/%s", c.region, s.account, id, a.ResourceID, a.ScheduledActionName),
			ServiceNamespace:     "dynamodb",
			Schedule:             a.Schedule,
			Timezone:             a.Timezone,
			ResourceId:           a.ResourceID,
			ScalableDimension:    a.ScalableDimension,
			StartTime:            epoch(a.StartTime),
			EndTime:              epoch(a.EndTime),
			ScalableTargetAction: aasScalableTargetAction{MinCapacity: a.MinCapacity, MaxCapacity: a.MaxCapacity},
			CreationTime:         *epoch(a.CreationTime),
		})
	}
	out.NextToken = next
	return out, nil
}
