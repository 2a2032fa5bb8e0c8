// Package gcsettings sets the Go garbage collector's two knobs for a
// long-running exporter: the GC percentage (GOGC) and the soft memory limit
// (GOMEMLIMIT).
//
// Most of the exporter's heap is long-lived (the capacity history, the
// published snapshots and their encoded bodies: about 90% of it at 1,000
// tables), so Go's default GOGC of 100 lets the heap grow to twice that
// before collecting the short-lived rest: memory nobody uses. Prometheus
// lowers its own GOGC for the same reason (to 75 since 2.53). A fixed low
// GOGC, though, makes a small heap collect all the time (the runtime's
// smallest heap goal is 4 MiB × GOGC/100): by default the exporter adapts it
// to the live heap instead (Adaptive), 100 up to 8 MiB live, down to 10
// from 80 MiB. Inside a container with a memory limit it also sets the soft
// memory limit to a share of it (Prometheus' --auto-gomemlimit). Either is
// left as the environment sets it when GOGC or GOMEMLIMIT is set there,
// unless a flag says otherwise.
package gcsettings

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"time"
)

// The adaptive GC percentage, used when neither the --runtime.gogc flag nor
// the GOGC environment variable sets one: the heap may grow past the live
// heap by Headroom, but by at most MaxGOGC and at least MinGOGC percent.
// Measured with cmd/bench at 1,000 tables (docs/performance.md, live heap
// about 140 MiB): steady RSS 549 MiB at GOGC 100 before the heap was cut,
// then 276 MiB at 50 and 233 MiB at 25, for the same CPU per minute of
// collection (0.88 s) at 50 and 25. The process's RSS is about the heap
// goal (live heap plus headroom) and a tenth of it the runtime keeps
// before returning freed pages, plus about 30 MiB of its own (binary,
// stacks, GC metadata; 22 MiB of it the binary's pages). Issue 24's
// targets (RSS ≤ 40 MiB steady up to 100 tables, ≤ 100 MiB at 1,000) leave
// little beside that: 8 MiB of headroom (24 MiB before) takes about
// 10 MiB off the heap goal at 100 tables (live heap about 12 to 18 MiB)
// for a collection every 8 MiB allocated, each marking that small heap:
// the bench's CPU per minute of collection at 100 tables (0.15 s before,
// 0.18 s after, both on a machine loaded by other jobs) shows no cost that
// can be told from the noise. From 80 MiB live (about 700 tables) the 10%
// floor rules: since the capacity history rests packed, most of a large
// heap holds no pointers (byte buffers the collector does not scan), so
// that a collection every 8 to 10 MiB allocated (about 8 a minute at
// 1,000 tables, at about 1.2 MB/s allocated) marks little. A 20% floor
// set the heap goal about 8 MiB higher there (estimated from the live
// heap, not measured apart from round 5's other changes; the round's CPU
// per minute of collection went 1.39 → 1.44 s: docs/performance.md).
const (
	MinGOGC  = 10
	MaxGOGC  = 100
	Headroom = 8 << 20
)

// MinGOGCFrom is the live heap from which the GC percentage is MinGOGC.
const MinGOGCFrom = 100 * Headroom / MinGOGC

// AdaptiveGOGC returns the GC percentage for a live heap of live bytes.
func AdaptiveGOGC(live uint64) int {
	if live == 0 {
		return MaxGOGC
	}
	return int(min(max(100*Headroom/live, MinGOGC), MaxGOGC))
}

// DefaultMemoryLimitRatio is the share of the container's memory limit the
// soft memory limit is set to: the rest is left to what the Go runtime does
// not count (stacks of cgo, the binary's mappings) and to the kernel.
const DefaultMemoryLimitRatio = 0.9

// Settings are what the flags ask for.
type Settings struct {
	// GOGC is the GC percentage; nil: the GOGC environment variable's, else
	// adaptive (AdaptiveGOGC, Tune). Negative turns the collector off
	// (GOGC=off).
	GOGC *int
	// AutoMemoryLimit sets the soft memory limit to MemoryLimitRatio of the
	// cgroup's memory limit, when there is one and GOMEMLIMIT is not set.
	AutoMemoryLimit bool
	// MemoryLimitRatio is in (0, 1].
	MemoryLimitRatio float64
}

// Applied says what Apply set, and why, for the start-up log.
type Applied struct {
	GOGC       int    // the GC percentage in effect (-1: off)
	GOGCSource string // "flag", "environment" or "adaptive"
	// Adaptive: Tune should run, adapting GOGC to the live heap.
	Adaptive bool
	// MemoryLimit is the soft memory limit in bytes set by Apply, 0 when
	// Apply left it alone; MemoryLimitSource says why.
	MemoryLimit       int64
	MemoryLimitSource string
}

// Env is what Apply reads from the process: its environment and the file
// system holding /proc and /sys (os.DirFS("/") in production).
type Env struct {
	Getenv func(string) string
	FS     fs.FS
}

// Apply sets the GC percentage and the soft memory limit as s asks, and
// returns what it did. An error names the flag or file at fault; nothing is
// changed on a flag error.
func Apply(s Settings, env Env) (Applied, error) {
	var a Applied
	if s.MemoryLimitRatio <= 0 || s.MemoryLimitRatio > 1 || math.IsNaN(s.MemoryLimitRatio) {
		return a, fmt.Errorf("--runtime.auto-gomemlimit.ratio: must be in (0, 1], got %v", s.MemoryLimitRatio)
	}
	switch {
	case s.GOGC != nil:
		a.GOGC, a.GOGCSource = max(*s.GOGC, -1), "flag"
		debug.SetGCPercent(a.GOGC)
	case env.Getenv("GOGC") != "":
		// The runtime has applied it at start-up: read it back.
		a.GOGC, a.GOGCSource = debug.SetGCPercent(100), "environment"
		debug.SetGCPercent(a.GOGC)
	default:
		a.GOGC, a.GOGCSource, a.Adaptive = AdaptiveGOGC(liveHeap()), "adaptive", true
		debug.SetGCPercent(a.GOGC)
	}
	switch {
	case !s.AutoMemoryLimit:
		a.MemoryLimitSource = "off (--no-runtime.auto-gomemlimit)"
	case env.Getenv("GOMEMLIMIT") != "":
		a.MemoryLimitSource = "environment (GOMEMLIMIT)"
	default:
		limit, where, err := CgroupMemoryLimit(env.FS)
		if err != nil {
			return a, err
		}
		if limit == 0 {
			a.MemoryLimitSource = "none (no cgroup memory limit)"
			break
		}
		a.MemoryLimit = int64(float64(limit) * s.MemoryLimitRatio)
		a.MemoryLimitSource = fmt.Sprintf("%v of the cgroup memory limit %d (%s)", s.MemoryLimitRatio, limit, where)
		debug.SetMemoryLimit(a.MemoryLimit)
	}
	return a, nil
}

// unlimitedV1 is the smallest value cgroup v1 reports for "no limit" (the
// largest int64 rounded down to a page, 9223372036854771712, and above).
const unlimitedV1 = 1 << 62

// CgroupMemoryLimit returns the memory limit of the cgroup this process
// runs in, the smallest set on its path up to the root of the hierarchy
// visible to it (cgroup v2 memory.max, or cgroup v1
// memory.limit_in_bytes), and the file it was read from; 0 when there is
// none, or no cgroup file system. fsys is the root file system.
func CgroupMemoryLimit(fsys fs.FS) (int64, string, error) {
	groups, err := readLines(fsys, "proc/self/cgroup")
	if errors.Is(err, fs.ErrNotExist) {
		return 0, "", nil
	} else if err != nil {
		return 0, "", err
	}
	mounts, err := readLines(fsys, "proc/self/mountinfo")
	if errors.Is(err, fs.ErrNotExist) {
		return 0, "", nil
	} else if err != nil {
		return 0, "", err
	}
	var v1Path, v2Path string
	var haveV1, haveV2 bool
	for _, l := range groups {
		// hierarchy-ID:controller-list:cgroup-path (cgroups(7)).
		parts := strings.SplitN(l, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2Path, haveV2 = parts[2], true
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "memory" {
				v1Path, haveV1 = parts[2], true
			}
		}
	}
	for _, l := range mounts {
		// ID parent major:minor root mount-point options [optional...] - fstype source super-options (proc(5), mountinfo).
		left, right, ok := strings.Cut(l, " - ")
		if !ok {
			continue
		}
		lf, rf := strings.Fields(left), strings.Fields(right)
		if len(lf) < 5 || len(rf) < 3 {
			continue
		}
		root, point := lf[3], lf[4]
		switch {
		case rf[0] == "cgroup" && haveV1 && hasOption(rf[2], "memory"):
			return limitAlong(fsys, point, relative(v1Path, root), "memory.limit_in_bytes")
		case rf[0] == "cgroup2" && haveV2:
			limit, where, err := limitAlong(fsys, point, relative(v2Path, root), "memory.max")
			if err != nil || limit > 0 || !haveV1 {
				return limit, where, err
			}
		}
	}
	return 0, "", nil
}

// limitAlong returns the smallest limit in file along dir (relative to the
// mount point) and its parents.
func limitAlong(fsys fs.FS, point, dir, file string) (int64, string, error) {
	var best int64
	var where string
	for d := dir; ; d = path.Dir(d) {
		name := strings.TrimPrefix(path.Join(point, d, file), "/")
		b, err := fs.ReadFile(fsys, name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// The root of a hierarchy has no limit file (v2), or the
			// group is not visible here.
		case err != nil:
			return 0, "", fmt.Errorf("reading the cgroup memory limit: %w", err)
		default:
			v := strings.TrimSpace(string(b))
			if v != "max" {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil || n <= 0 {
					return 0, "", fmt.Errorf("reading the cgroup memory limit: /%s: not a byte count: %q", name, v)
				}
				if n < unlimitedV1 && (best == 0 || n < best) {
					best, where = n, "/"+name
				}
			}
		}
		if d == "/" || d == "." {
			return best, where, nil
		}
	}
}

// relative returns the cgroup path p as seen under a mount of root.
func relative(p, root string) string {
	if root == "/" {
		return path.Clean("/" + p)
	}
	if r, ok := strings.CutPrefix(p, root); ok && (r == "" || r[0] == '/') {
		return path.Clean("/" + r)
	}
	// A path outside the mount's root (another namespace): the mount's
	// root is the process's group.
	return "/"
}

func hasOption(opts, want string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == want {
			return true
		}
	}
	return false
}

func readLines(fsys fs.FS, name string) ([]string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading /%s: %w", name, err)
	}
	return lines, nil
}

// OS is the environment of the running process.
func OS() Env { return Env{Getenv: os.Getenv, FS: os.DirFS("/")} }

// liveHeap returns the heap marked live by the last GC cycle, in bytes.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// TuneInterval is how often Tune looks at the live heap: a read of a
// runtime metric, and a new GC percentage only when it changes. Every
// second, so that the first history fetch, which takes the live heap from
// a few MiB to its steady size within a minute, runs with the percentage
// of the heap it has, not with the 100 of an empty heap for its first
// 15 seconds (the interval before issue 24).
const TuneInterval = time.Second

// Tune adapts the GC percentage to the live heap every interval until done
// is closed, calling changed (if not nil) with each new percentage. Run it
// only when Apply returned Adaptive.
func Tune(done <-chan struct{}, interval time.Duration, changed func(gogc int)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	tune(done, t.C, liveHeap, debug.SetGCPercent, changed)
}

func tune(done <-chan struct{}, tick <-chan time.Time, live func() uint64, set func(int) int, changed func(int)) {
	cur := set(MaxGOGC)
	set(cur)
	for {
		select {
		case <-done:
			return
		case <-tick:
		}
		if g := AdaptiveGOGC(live()); g != cur {
			set(g)
			cur = g
			if changed != nil {
				changed(g)
			}
		}
	}
}
