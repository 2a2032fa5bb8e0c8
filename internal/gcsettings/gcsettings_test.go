package gcsettings

import (
	"math"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// v2 is a container on cgroup v2 whose group (seen from the host) is
// /kubepods/pod1/ctr, with a pod limit of 512 MiB and a container limit of
// 256 MiB.
func v2(containerLimit string) fstest.MapFS {
	return fstest.MapFS{
		"proc/self/cgroup":                           {Data: []byte("0::/kubepods/pod1/ctr\n")},
		"proc/self/mountinfo":                        {Data: []byte("24 30 0:22 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw,nsdelegate\n")},
		"sys/fs/cgroup/kubepods/pod1/memory.max":     {Data: []byte("536870912\n")},
		"sys/fs/cgroup/kubepods/pod1/ctr/memory.max": {Data: []byte(containerLimit + "\n")},
		"sys/fs/cgroup/kubepods/memory.max":          {Data: []byte("max\n")},
	}
}

func TestCgroupMemoryLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fs    fstest.MapFS
		want  int64
		where string
		err   string
	}{
		{name: "v2, the container's own limit", fs: v2("268435456"), want: 256 << 20, where: "/sys/fs/cgroup/kubepods/pod1/ctr/memory.max"},
		{name: "v2, a parent's smaller limit", fs: v2("max"), want: 512 << 20, where: "/sys/fs/cgroup/kubepods/pod1/memory.max"},
		{name: "v2, not a number", fs: v2("lots"), err: `/sys/fs/cgroup/kubepods/pod1/ctr/memory.max: not a byte count: "lots"`},
		{name: "v2 in a cgroup namespace", fs: fstest.MapFS{
			"proc/self/cgroup":            {Data: []byte("0::/\n")},
			"proc/self/mountinfo":         {Data: []byte("24 30 0:22 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n")},
			"sys/fs/cgroup/memory.max":    {Data: []byte("104857600\n")},
			"sys/fs/cgroup/cgroup.procs":  {Data: []byte("1\n")},
			"sys/fs/cgroup/memory.events": {Data: []byte("oom 0\n")},
		}, want: 100 << 20, where: "/sys/fs/cgroup/memory.max"},
		{name: "v1, mount rooted at the container's group", fs: fstest.MapFS{
			"proc/self/cgroup": {Data: []byte("9:name=systemd:/\n4:memory:/docker/abc\n1:cpu,cpuacct:/docker/abc\n0::/\n")},
			"proc/self/mountinfo": {Data: []byte(
				"31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n" +
					"35 31 0:32 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n" +
					"41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n")},
			"sys/fs/cgroup/memory/memory.limit_in_bytes": {Data: []byte("1073741824\n")},
		}, want: 1 << 30, where: "/sys/fs/cgroup/memory/memory.limit_in_bytes"},
		{name: "v1 without a limit (this build machine)", fs: fstest.MapFS{
			"proc/self/cgroup":                                            {Data: []byte("4:memory:/process_api/0a31\n0::/\n")},
			"proc/self/mountinfo":                                         {Data: []byte("35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n")},
			"sys/fs/cgroup/memory/memory.limit_in_bytes":                  {Data: []byte("9223372036854771712\n")},
			"sys/fs/cgroup/memory/process_api/0a31/memory.limit_in_bytes": {Data: []byte("9223372036854771712\n")},
		}, want: 0},
		{name: "no /proc", fs: fstest.MapFS{}, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, where, err := CgroupMemoryLimit(tc.fs)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want || where != tc.where {
				t.Fatalf("limit %d from %q, want %d from %q", got, where, tc.want, tc.where)
			}
		})
	}
}

// restore puts the GC settings back as they were before the test.
func restore(t *testing.T) {
	gogc := debug.SetGCPercent(100)
	debug.SetGCPercent(gogc)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(gogc)
		debug.SetMemoryLimit(limit)
	})
}

func env(vars map[string]string, fsys fstest.MapFS) Env {
	return Env{Getenv: func(k string) string { return vars[k] }, FS: fsys}
}

func TestApply(t *testing.T) {
	restore(t)
	thirty := 30
	// The default, and the container's limit.
	a, err := Apply(Settings{AutoMemoryLimit: true, MemoryLimitRatio: 0.9}, env(nil, v2("268435456")))
	if err != nil {
		t.Fatal(err)
	}
	if got := debug.SetGCPercent(100); got != a.GOGC || a.GOGC != AdaptiveGOGC(liveHeap()) || a.GOGCSource != "adaptive" || !a.Adaptive {
		t.Errorf("GOGC %d (applied %d from %s, adaptive %v), want the adaptive %d", got, a.GOGC, a.GOGCSource, a.Adaptive, AdaptiveGOGC(liveHeap()))
	}
	ratio := 0.9
	want := int64(float64(256<<20) * ratio)
	if got := debug.SetMemoryLimit(-1); got != want || a.MemoryLimit != want {
		t.Errorf("memory limit %d (applied %d), want %d", got, a.MemoryLimit, want)
	}

	// GOGC and GOMEMLIMIT in the environment win over the defaults.
	debug.SetGCPercent(70) // as the runtime would have from GOGC=70
	debug.SetMemoryLimit(math.MaxInt64)
	a, err = Apply(Settings{AutoMemoryLimit: true, MemoryLimitRatio: 0.9}, env(map[string]string{"GOGC": "70", "GOMEMLIMIT": "1GiB"}, v2("268435456")))
	if err != nil {
		t.Fatal(err)
	}
	if got := debug.SetGCPercent(100); got != 70 || a.GOGCSource != "environment" || a.Adaptive {
		t.Errorf("GOGC %d from %s, want the environment's 70", got, a.GOGCSource)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 || a.MemoryLimit != 0 {
		t.Errorf("memory limit %d (applied %d), want it left alone", got, a.MemoryLimit)
	}

	// The flag wins over the environment; the limit can be turned off.
	a, err = Apply(Settings{GOGC: &thirty, MemoryLimitRatio: 0.9}, env(map[string]string{"GOGC": "70"}, v2("268435456")))
	if err != nil {
		t.Fatal(err)
	}
	if got := debug.SetGCPercent(100); got != 30 || a.GOGCSource != "flag" || a.Adaptive {
		t.Errorf("GOGC %d from %s, want the flag's 30", got, a.GOGCSource)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("memory limit %d, want it left alone with the auto limit off", got)
	}

	// A bad ratio names the flag and changes nothing.
	debug.SetGCPercent(100)
	if _, err := Apply(Settings{GOGC: &thirty, MemoryLimitRatio: 1.5}, env(nil, v2("max"))); err == nil || !strings.Contains(err.Error(), "--runtime.auto-gomemlimit.ratio") {
		t.Errorf("error %v, want one naming --runtime.auto-gomemlimit.ratio", err)
	}
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d after a refused ratio, want it unchanged (100)", got)
	}
}

// TestCgroupMemoryLimitHere reads this machine's own cgroup files: whatever
// they hold, they parse.
func TestCgroupMemoryLimitHere(t *testing.T) {
	limit, where, err := CgroupMemoryLimit(OS().FS)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("this machine's cgroup memory limit: %d (%s)", limit, where)
}

func TestAdaptiveGOGC(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 100}, {5 << 20, 100}, {8 << 20, 100}, {16 << 20, 50}, {32 << 20, 25},
		{40 << 20, 20}, {64 << 20, 12}, {80 << 20, 10}, {120 << 20, 10}, {142 << 20, 10}, {4 << 30, 10},
	} {
		if got := AdaptiveGOGC(tc.live); got != tc.want {
			t.Errorf("AdaptiveGOGC(%d MiB) = %d, want %d", tc.live>>20, got, tc.want)
		}
	}
}

// TestTune: the tuner sets the adaptive percentage as the live heap grows
// and shrinks, only when it changes, and stops when done is closed.
func TestTune(t *testing.T) {
	tick := make(chan time.Time)
	done := make(chan struct{})
	lives := make(chan uint64, 1)
	var sets, changes []int
	cur := 100
	set := func(g int) int { prev := cur; cur = g; sets = append(sets, g); return prev }
	stopped := make(chan struct{})
	go func() {
		tune(done, tick, func() uint64 { return <-lives }, set, func(g int) { changes = append(changes, g) })
		close(stopped)
	}()
	for _, live := range []uint64{4 << 20, 16 << 20, 16 << 20, 200 << 20, 4 << 20} {
		lives <- live
		tick <- time.Time{}
	}
	// One more tick at the same live heap: once it is taken, the last
	// change has been made.
	lives <- 4 << 20
	tick <- time.Time{}
	close(done)
	<-stopped
	if want := []int{50, 10, 100}; !slices.Equal(changes, want) {
		t.Errorf("changes %v, want %v", changes, want)
	}
	if cur != 100 {
		t.Errorf("GC percentage %d at the end, want 100", cur)
	}
}
