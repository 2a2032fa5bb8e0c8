//go:build heapprofile

// Heap profiles for cmd/bench, in a binary built with -tags heapprofile
// only (a release binary has none of this): with
// DYNAMODB_EXPORTER_HEAP_PROFILES set to a path prefix, the process writes
// a heap profile to <prefix>peak.pb.gz each time the heap in use rises 10%
// above the last one written there (the first history fetch's peak), and
// to <prefix><n>.pb.gz, after a collection, on each SIGUSR1 (n counts from
// 1). Read them with `go tool pprof -sample_index=inuse_space`.

package main

import (
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"syscall"
	"time"
)

func init() {
	prefix := os.Getenv("DYNAMODB_EXPORTER_HEAP_PROFILES")
	if prefix == "" {
		return
	}
	write := func(name string) {
		f, err := os.Create(prefix + name + ".pb.gz")
		if err != nil {
			fmt.Fprintf(os.Stderr, "heap profile: %v\n", err)
			return
		}
		defer f.Close()
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			fmt.Fprintf(os.Stderr, "heap profile: %v\n", err)
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	go func() {
		for n := 1; ; n++ {
			<-sig
			runtime.GC()
			write(fmt.Sprint(n))
		}
	}()
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var written uint64
		for range time.Tick(250 * time.Millisecond) {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > written+written/10 {
				write("peak")
				written = v
			}
		}
	}()
}
