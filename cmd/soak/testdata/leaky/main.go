// Command leaky stands in for the exporter in TestSoakCatchesALeak: it
// takes the exporter's serve flags, serves /metrics in every format the
// soak asks for, with the Go and process collectors, and leaks on every
// scrape a goroutine that never ends, an open file descriptor and 64 KiB
// of heap.
package main

import (
	"context"
	"flag"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

var (
	mu   sync.Mutex
	kept [][]byte
	fds  []*os.File
)

func main() {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	addr := fs.String("web.listen-address", ":9849", "")
	fs.String("config", "", "")
	fs.String("log.level", "", "")
	_ = fs.Parse(os.Args[2:])

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	info := prometheus.NewGauge(prometheus.GaugeOpts{Name: "dynamodb_exporter_build_info"})
	info.Set(1)
	last := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "dynamodb_exporter_collector_last_success_timestamp_seconds"}, []string{"collector"})
	last.WithLabelValues("capacity").SetToCurrentTime()
	reg.MustRegister(info, last)
	h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
	block := make(chan struct{})
	http.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
		go func() { <-block }()
		f, _ := os.Open(os.Args[0])
		mu.Lock()
		kept = append(kept, make([]byte, 64<<10))
		for i := range kept[len(kept)-1] {
			kept[len(kept)-1][i] = byte(i)
		}
		fds = append(fds, f)
		mu.Unlock()
		h.ServeHTTP(w, r)
	})
	srv := &http.Server{Addr: *addr}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	if err := srv.ListenAndServe(); err != http.ErrServerClosed {
		panic(err)
	}
}
