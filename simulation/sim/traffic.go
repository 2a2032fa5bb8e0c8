package sim

import (
	"math"
	"time"
)

// trafficGen is the demand of one table as a pure function of the minute:
// base rates × daily and weekly seasonality × noise × events. Minutes are
// Unix minutes (Unix seconds ÷ 60).
type trafficGen struct {
	read, write float64
	dailyCurve  [1440]float64 // daily seasonality factor by minute of the UTC day
	weekly      float64
	noise       float64
	seed        uint64
	hotBase     float64
	events      []event
	// growth is the log of the traffic's growth a minute, from start.
	growth float64
	start  int64
}

// monthMinutes is the month of TrafficSpec.Growth: 730 hours.
const monthMinutes = 730 * 60

// event is an EventSpec in absolute minutes.
type event struct {
	typ                  string
	at, dur, ramp, decay int64
	every, until         int64 // every 0: once
	factor, retain       float64
	onRead, onWrite      bool
	readF, writeF, share float64
}

// demand is the traffic of one minute.
type demand struct {
	read, write float64 // capacity units per second
	hot         float64 // share of the traffic on the hottest partition
}

func minutesOf(d time.Duration) int64 { return int64(d / time.Minute) }

func newTrafficGen(tr *TrafficSpec, hot float64, seed uint64, start int64, horizonEnd int64) *trafficGen {
	g := &trafficGen{read: tr.Read, write: tr.Write, weekly: tr.Weekly, noise: tr.Noise, seed: seed, hotBase: hot, start: start}
	if tr.Growth != 0 {
		g.growth = math.Log1p(tr.Growth) / monthMinutes
	}
	peak := tr.PeakHour * 60
	for m := range g.dailyCurve {
		g.dailyCurve[m] = 1 + tr.Daily*math.Cos(2*math.Pi*(float64(m)-peak)/1440)
	}
	for _, e := range tr.Events {
		ev := event{
			typ: e.Type, at: start + minutesOf(e.At.D()), dur: minutesOf(e.Duration.D()),
			decay: max(1, minutesOf(e.Decay.D())), every: minutesOf(e.Every.D()), until: horizonEnd,
			factor: e.Factor, retain: e.Retain, readF: e.Read, writeF: e.Write, share: e.Share,
			onRead: e.Direction != "write", onWrite: e.Direction != "read",
		}
		if e.Ramp != nil {
			ev.ramp = minutesOf(e.Ramp.D())
		}
		if e.Until != nil {
			ev.until = start + minutesOf(e.Until.D())
		}
		if tod, ok := timeOfDay(e.AtUTC); ok && e.AtUTC != "" {
			// Unix minutes modulo a day are the UTC minute of the day.
			shift := ((tod-ev.at%1440)%1440 + 1440) % 1440
			ev.at += shift
			if e.Until != nil {
				ev.until += shift
			}
		}
		g.events = append(g.events, ev)
	}
	return g
}

// local returns the minute's offset into the event's latest occurrence, or
// false before the first one.
func (e *event) local(m int64) (int64, bool) {
	if m < e.at {
		return 0, false
	}
	t := m - e.at
	if e.every > 0 {
		k := t / e.every
		if last := (e.until - e.at) / e.every; k > last {
			k = max(last, 0)
		}
		t -= k * e.every
	}
	return t, true
}

// ramped rises linearly from 1 to f over ramp minutes (at once for 0).
func ramped(f float64, t, ramp int64) float64 {
	if ramp <= 0 || t+1 >= ramp {
		return f
	}
	return 1 + (f-1)*float64(t+1)/float64(ramp)
}

// apply returns the read and write factors of e in minute m and raises hot.
func (e *event) apply(m int64, hot *float64) (rf, wf float64) {
	t, ok := e.local(m)
	if !ok {
		return 1, 1
	}
	f := 1.0
	switch e.typ {
	case EventSpike:
		if t < e.dur {
			f = ramped(e.factor, t, e.ramp)
		}
	case EventFlashSale:
		if t < e.dur {
			f = 1 + (e.factor-1)*math.Exp(-3*float64(t)/float64(e.dur))
		}
	case EventStep:
		f = ramped(e.factor, t, e.ramp)
	case EventSurge:
		hold := e.ramp + e.dur
		switch {
		case t < e.ramp:
			f = ramped(e.factor, t, e.ramp)
		case t < hold:
			f = e.factor
		default:
			kept := math.Max(1, e.retain*e.factor)
			f = kept + (e.factor-kept)*math.Exp(-float64(t-hold)/float64(e.decay))
		}
	case EventMix:
		return e.readF, e.writeF
	case EventHotKey:
		if t < e.dur && e.share > *hot {
			*hot = e.share
		}
		return 1, 1
	}
	rf, wf = 1, 1
	if e.onRead {
		rf = f
	}
	if e.onWrite {
		wf = f
	}
	return rf, wf
}

// at returns the demand of minute m (a Unix minute).
func (g *trafficGen) at(m int64) demand {
	mod := m % 1440
	if mod < 0 {
		mod += 1440
	}
	season := g.dailyCurve[mod]
	if g.weekly > 0 {
		// The Unix epoch was a Thursday: day 0 is Thursday, 2 Saturday, 3 Sunday.
		if dow := (m / 1440) % 7; dow == 2 || dow == 3 {
			season *= 1 - g.weekly
		}
	}
	if g.growth != 0 {
		season *= math.Exp(g.growth * float64(m-g.start))
	}
	d := demand{read: g.read * season, write: g.write * season, hot: g.hotBase}
	if g.noise > 0 {
		d.read *= 1 + g.noise*(2*unit(g.seed, m)-1)
		d.write *= 1 + g.noise*(2*unit(g.seed^0x5bd1e995, m)-1)
	}
	for i := range g.events {
		rf, wf := g.events[i].apply(m, &d.hot)
		d.read *= rf
		d.write *= wf
	}
	return d
}

// unit is a deterministic pseudo-random number in [0,1) for seed and minute
// (the splitmix64 finalizer).
func unit(seed uint64, m int64) float64 {
	x := seed ^ uint64(m)*0x9e3779b97f4a7c15
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// hashString is FNV-1a of s, for seeds.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
