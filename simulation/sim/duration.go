package sim

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Duration is a non-negative length of time written like 90s, 15m, 2h, 3d,
// 6w or 1d12h.
type Duration time.Duration

// Offset is a signed time relative to the scenario start: -6w is six weeks
// before it, 2h two hours after, 0 the start itself.
type Offset time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// D returns o as a time.Duration.
func (o Offset) D() time.Duration { return time.Duration(o) }

// durationUnits are the units a duration may use, longest suffix first
// where one is a prefix of another ("ms" before "m").
var durationUnits = []struct {
	suffix string
	unit   time.Duration
}{
	{"ms", time.Millisecond},
	{"w", 7 * 24 * time.Hour},
	{"d", 24 * time.Hour},
	{"h", time.Hour},
	{"m", time.Minute},
	{"s", time.Second},
}

// parseOffset reads a signed duration such as -6w, +2h, 1d12h or 0.
func parseOffset(s string) (time.Duration, error) {
	orig := s
	s = strings.TrimSpace(s)
	neg := false
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		neg, s = true, rest
	} else if rest, ok := strings.CutPrefix(s, "+"); ok {
		s = rest
	}
	if s == "0" {
		return 0, nil
	}
	if s == "" {
		return 0, fmt.Errorf("invalid duration %q: use a number and a unit, such as 90s, 15m, 2h, 3d or 6w", orig)
	}
	var total time.Duration
	for s != "" {
		i := 0
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			i++
		}
		if i == 0 {
			return 0, fmt.Errorf("invalid duration %q: use a number and a unit, such as 90s, 15m, 2h, 3d or 6w", orig)
		}
		n, err := strconv.ParseFloat(s[:i], 64)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q: bad number %q", orig, s[:i])
		}
		s = s[i:]
		found := false
		for _, u := range durationUnits {
			if rest, ok := strings.CutPrefix(s, u.suffix); ok {
				total += time.Duration(n * float64(u.unit))
				s, found = rest, true
				break
			}
		}
		if !found {
			return 0, fmt.Errorf("invalid duration %q: missing or unknown unit (use ms, s, m, h, d or w)", orig)
		}
	}
	if neg {
		total = -total
	}
	return total, nil
}

// formatOffset renders an offset for messages (e.g. -1008h0m0s as -6w).
func formatOffset(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	switch {
	case d == 0:
		return "0"
	case d%(7*24*time.Hour) == 0:
		return fmt.Sprintf("%s%dw", sign, d/(7*24*time.Hour))
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%s%dd", sign, d/(24*time.Hour))
	}
	return sign + d.String()
}
