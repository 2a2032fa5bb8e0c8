package capacity

import (
	"math"
	"sort"
)

// The traffic trend: a robust fit of the growth of a table's daily consumed
// units, which the projection (projection.go) applies to the cost a year or
// two ahead.
//
// Method. y_d = ln(consumed units of UTC day d), reads plus writes of the
// table and its GSIs, over the whole days of the history with traffic (a
// day without any is left out: its logarithm is undefined). The slope of
// y against d is the seasonal Kendall slope estimator (Hirsch, Slack and
// Smith 1982), the Theil–Sen estimator (Sen 1968) taken within each day of
// the week: the median of the slopes (y_j − y_i) ÷ (j − i) of every pair of
// days a whole number of weeks apart. Pairing a Monday only with Mondays
// keeps a weekly cycle (a weekend dip) out of the slope, which a plain
// Theil–Sen over all pairs takes in whenever the history does not hold
// whole weeks in the same phase. Its two-sided TrendConfidence interval is
// Sen's distribution-free one, from the null distribution of the seasonal
// Kendall statistic (the sum of the seven weekdays' S): with N pair slopes
// sorted ascending (1-based) and C = z · √(Σ n_k(n_k−1)(2n_k+5)/18) (z the
// normal quantile, n_k the days fitted of weekday k, ties not corrected),
// the lower limit is slope number round((N − C)/2) and the upper limit
// slope number round((N + C)/2) + 1, as in Gilbert (1987), "Statistical
// Methods for Environmental Pollution Monitoring", §16.5 and §17.4. Growth
// is claimed only when the interval excludes zero (TrendGrowing,
// TrendDeclining); otherwise the trend is TrendFlat and the projection
// applies no growth at all: no growth from noise.
//
// Caveats, stated where the figures are shown: the interval assumes the
// days' deviations from the trend independent; traffic that wanders for
// weeks (a baseline that drifts and comes back) is not independent, and
// its interval is too narrow, which is why the level is 99% rather than
// 95%. A fitted growth is compound (a constant percentage a day), and the
// projection extrapolates it up to 24 months from at most the history's
// 12 weeks: it is a what-if at today's trend, not a forecast of events.
const (
	// TrendConfidence is the level of the slope's interval.
	TrendConfidence = 0.99
	// trendZ is the two-sided normal quantile of TrendConfidence.
	trendZ = 2.5758293035489004
	// MinTrendDays is the fewest whole days with traffic the trend is
	// fitted on: two weeks, so that a weekly cycle is seen twice.
	MinTrendDays = 14
	// DaysPerMonth is the month of the projection: HoursPerMonth ÷ 24.
	DaysPerMonth = HoursPerMonth / 24.0
)

// TrendStatus says what the fit of a history claims.
type TrendStatus string

const (
	// TrendGrowing: the slope's interval lies above zero.
	TrendGrowing TrendStatus = "growing"
	// TrendDeclining: the slope's interval lies below zero.
	TrendDeclining TrendStatus = "declining"
	// TrendFlat: the interval holds zero; the projection applies no growth.
	TrendFlat TrendStatus = "flat"
	// TrendTooShort: fewer than MinTrendDays days with traffic; no fit and
	// no projection.
	TrendTooShort TrendStatus = "history_too_short"
)

// Trend is the fit of a history's daily consumed units.
type Trend struct {
	// Status is what the fit claims.
	Status TrendStatus
	// Days is how many days were fitted (days with traffic).
	Days int
	// Slope, Lower and Upper are the Theil–Sen slope of the daily log
	// totals and its TrendConfidence interval, per day (0.01: about 1% a
	// day); NaN when Status is TrendTooShort.
	Slope, Lower, Upper float64
}

// FitTrend fits the trend of daily consumed units, one value per whole UTC
// day in order (a gap of a day is a zero or a negative value: left out, its
// neighbours keep their day numbers).
func FitTrend(daily []float64) Trend {
	var seasons [7][]point
	n := 0
	for d, v := range daily {
		if v > 0 && !math.IsInf(v, 0) {
			seasons[d%7] = append(seasons[d%7], point{float64(d), math.Log(v)})
			n++
		}
	}
	t := Trend{Status: TrendTooShort, Days: n, Slope: math.NaN(), Lower: math.NaN(), Upper: math.NaN()}
	if n < MinTrendDays {
		return t
	}
	var slopes []float64
	var variance float64
	for _, ps := range seasons {
		k := float64(len(ps))
		variance += k * (k - 1) * (2*k + 5) / 18
		for i := range ps {
			for j := i + 1; j < len(ps); j++ {
				slopes = append(slopes, (ps[j].y-ps[i].y)/(ps[j].x-ps[i].x))
			}
		}
	}
	N := len(slopes)
	if N == 0 {
		return t
	}
	sort.Float64s(slopes)
	t.Slope = median(slopes)
	c := trendZ * math.Sqrt(variance)
	lo := int(math.Round((float64(N)-c)/2)) - 1 // 0-based: slope number lo+1
	hi := int(math.Round((float64(N) + c) / 2))
	t.Lower, t.Upper = slopes[max(0, min(lo, N-1))], slopes[max(0, min(hi, N-1))]
	switch {
	case t.Lower > 0:
		t.Status = TrendGrowing
	case t.Upper < 0:
		t.Status = TrendDeclining
	default:
		t.Status = TrendFlat
	}
	return t
}

// point is a day and its log total.
type point struct{ x, y float64 }

// median of sorted values.
func median(s []float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Factor returns the growth the projection applies over months: e^(Slope ×
// months × DaysPerMonth) for a growing or declining trend, 1 for a flat one
// (no growth claimed) and NaN without a fit.
func (t Trend) Factor(months float64) float64 {
	switch t.Status {
	case TrendGrowing, TrendDeclining:
		return math.Exp(t.Slope * months * DaysPerMonth)
	case TrendFlat:
		return 1
	}
	return math.NaN()
}

// Yearly returns the fitted growth over 12 months and its interval, as
// ratios minus 1 (0.25: 25% a year), whatever the status; NaN without a
// fit. Factor(12) − 1 is what the projection applies.
func (t Trend) Yearly() (est, lower, upper float64) {
	y := func(s float64) float64 { return math.Expm1(s * 12 * DaysPerMonth) }
	return y(t.Slope), y(t.Lower), y(t.Upper)
}
