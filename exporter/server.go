package exporter

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"

	"github.com/dynamodb-exporter/dynamodb_exporter/exposition"
	"github.com/dynamodb-exporter/dynamodb_exporter/report"
)

// Handler returns the HTTP handler of the app: the metrics at
// telemetryPath, served from the exposition cache (the collectors'
// snapshots are encoded in the background once per published snapshot and
// format in use; every scheduler run announces its snapshot), and at the root a
// landing page that links the metrics and shows the fleet summary (the
// largest monthly saving first).
func (a *App) Handler(telemetryPath string, logger *slog.Logger) (http.Handler, error) {
	sources := make([]exposition.Source, len(a.exporter.collectors))
	for i, c := range a.exporter.collectors {
		sources[i] = c
	}
	live := []prometheus.Collector{liveCollector{a.exporter}}
	if a.runtimeMetrics {
		live = append(live, runtimeCollectors()...)
	}
	x, err := exposition.New(sources, live, a.Registry, logger)
	if err != nil {
		return nil, fmt.Errorf("building the exposition: %w", err)
	}
	a.published.add(x)
	if telemetryPath == "/" {
		return x, nil
	}
	mux := http.NewServeMux()
	mux.Handle(telemetryPath, x)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		l := report.Landing{Version: version.Info(), MetricsPath: telemetryPath, CapacityEnabled: a.Capacity != nil, Now: a.Clock.Now()}
		if a.Capacity != nil {
			l.Reports = a.Capacity.ReportFigures() // the landing page shows no chart: not worth computing them
		}
		var buf bytes.Buffer
		if err := report.LandingHTML(&buf, l); err != nil {
			logger.Error("landing page", "err", err)
			http.Error(w, "the landing page could not be rendered", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(buf.Bytes())
	})
	return mux, nil
}

// ServeAll serves h on every listener until ctx ends, each with the TLS and
// basic-auth settings of the exporter-toolkit web configuration file when
// one is given (the toolkit's web.Serve, as node_exporter does). The first
// listener that stops with an error stops them all and its error is
// returned; on ctx's end every server shuts down gracefully.
func ServeAll(ctx context.Context, listeners []net.Listener, h http.Handler, webConfigFile string, logger *slog.Logger) error {
	if len(listeners) == 0 {
		return errors.New("nothing to serve on: no listener")
	}
	// web.Serve leaves a listener open when it fails before serving (a web
	// configuration that does not load), and Shutdown closes only the
	// listeners a server serves: close them all on the way out.
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	systemd := false
	// One http.Server per listener: web.Serve installs its authenticating
	// handler on the server it is given, which must not be shared.
	servers := make([]*http.Server, len(listeners))
	errc := make(chan error, len(listeners))
	for i, l := range listeners {
		// The server's own errors (a failed TLS handshake, a scanner's
		// garbage) go to the exporter's logger, in its format, not to stderr.
		srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
			ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
		servers[i] = srv
		flags := &web.FlagConfig{
			WebListenAddresses: &[]string{l.Addr().String()},
			WebSystemdSocket:   &systemd,
			WebConfigFile:      &webConfigFile,
		}
		go func() { errc <- web.Serve(l, srv, flags, logger) }()
	}
	shutdown := func() error {
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		var errs []error
		for _, srv := range servers {
			if err := srv.Shutdown(shutdownCtx); err != nil {
				errs = append(errs, fmt.Errorf("shutting down the HTTP server: %w", err))
			}
		}
		return errors.Join(errs...)
	}
	// wait collects the remaining servers' results after a shutdown.
	wait := func(n int) error {
		var errs []error
		for range n {
			if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	select {
	case err := <-errc:
		// One listener failed (a bad web configuration file, a closed
		// socket): stop the others rather than serve half the addresses.
		_ = shutdown()
		_ = wait(len(listeners) - 1)
		if err == nil || errors.Is(err, http.ErrServerClosed) {
			return errors.New("an HTTP server stopped unexpectedly")
		}
		return err
	case <-ctx.Done():
		if err := shutdown(); err != nil {
			return err
		}
		return wait(len(listeners))
	}
}
