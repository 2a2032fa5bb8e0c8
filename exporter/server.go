package exporter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/version"
	"github.com/prometheus/exporter-toolkit/web"
)

// Handler returns the HTTP handler: the metrics at telemetryPath and a
// landing page at the root.
// Every scrape gathers and encodes the whole registry: App.Handler serves
// the same metrics from a cache.
func Handler(reg *prometheus.Registry, telemetryPath string, logger *slog.Logger) (http.Handler, error) {
	return withLanding(promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelError),
		EnableOpenMetrics: true,
		Registry:          reg,
	}), telemetryPath)
}

// Handler returns the HTTP handler of the app: the metrics at
// telemetryPath, served from the Exposition cache (the collectors'
// snapshots are encoded once per cycle and format), and a landing page at
// the root.
func (a *App) Handler(telemetryPath string, logger *slog.Logger) (http.Handler, error) {
	x, err := NewExposition(a.exporter, a.Registry, a.runtimeMetrics, logger)
	if err != nil {
		return nil, fmt.Errorf("building the exposition: %w", err)
	}
	return withLanding(x, telemetryPath)
}

func withLanding(metrics http.Handler, telemetryPath string) (http.Handler, error) {
	mux := http.NewServeMux()
	mux.Handle(telemetryPath, metrics)
	if telemetryPath != "/" {
		landing, err := web.NewLandingPage(web.LandingConfig{
			Name:        "DynamoDB Exporter",
			Description: "Prometheus exporter for Amazon DynamoDB capacity and TTL health",
			Version:     version.Info(),
			Links:       []web.LandingLinks{{Address: telemetryPath, Text: "Metrics"}},
		})
		if err != nil {
			return nil, fmt.Errorf("building the landing page: %w", err)
		}
		mux.Handle("/", landing)
	}
	return mux, nil
}

// Serve serves h on l until ctx ends, with the TLS and basic-auth settings of
// the exporter-toolkit web configuration file when one is given.
func Serve(ctx context.Context, l net.Listener, h http.Handler, webConfigFile string, logger *slog.Logger) error {
	// The server's own errors (a failed TLS handshake, a scanner's
	// garbage) go to the exporter's logger, in its format, not to stderr.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	systemd := false
	flags := &web.FlagConfig{
		WebListenAddresses: &[]string{l.Addr().String()},
		WebSystemdSocket:   &systemd,
		WebConfigFile:      &webConfigFile,
	}
	errc := make(chan error, 1)
	go func() { errc <- web.Serve(l, srv, flags, logger) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdownCtx); err != nil {
			return fmt.Errorf("shutting down the HTTP server: %w", err)
		}
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
