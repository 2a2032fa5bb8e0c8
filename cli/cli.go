// Package cli is dynamodb_exporter's command line: the kong command tree,
// the global flags, and one verb per command (serve, check, demo, replay,
// ttl, capacity, alerts, version). A verb parses its flags, calls the
// packages that hold the logic (exporter, preflight, report, alerts,
// simulation/harness…) and writes what they return; it holds no domain logic.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"github.com/alecthomas/kong"
	"github.com/coreos/go-systemd/v22/activation"
	"github.com/prometheus/common/version"

	"github.com/dynamodb-exporter/dynamodb_exporter/awsclient"
	"github.com/dynamodb-exporter/dynamodb_exporter/config"
	"github.com/dynamodb-exporter/dynamodb_exporter/exporter"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/gcsettings"
	"github.com/dynamodb-exporter/dynamodb_exporter/preflight"
	"github.com/dynamodb-exporter/dynamodb_exporter/simulation/harness"
)

// configFlags are shared by every command that reads the configuration.
type configFlags struct {
	Config   string `name:"config" help:"Path to the YAML configuration file (optional; see examples/config.yml)." env:"DYNAMODB_EXPORTER_CONFIG" type:"path"`
	Shard    string `name:"shard" help:"This replica's share of the tables, INDEX/COUNT from 0 (0/3, 1/3, 2/3 for three replicas); overrides the config file's shard." env:"DYNAMODB_EXPORTER_SHARD" placeholder:"I/N"`
	Endpoint struct {
		DynamoDB               string `name:"dynamodb" help:"DynamoDB endpoint URL (overrides the config file; AWS_ENDPOINT_URL_DYNAMODB also works)." env:"DYNAMODB_EXPORTER_ENDPOINT_DYNAMODB"`
		CloudWatch             string `name:"cloudwatch" help:"CloudWatch endpoint URL." env:"DYNAMODB_EXPORTER_ENDPOINT_CLOUDWATCH"`
		ApplicationAutoScaling string `name:"application-autoscaling" help:"Application Auto Scaling endpoint URL." env:"DYNAMODB_EXPORTER_ENDPOINT_APPLICATION_AUTOSCALING"`
		STS                    string `name:"sts" help:"STS endpoint URL (used to assume roles)." env:"DYNAMODB_EXPORTER_ENDPOINT_STS"`
	} `embed:"" prefix:"endpoint."`
}

func (f configFlags) load() (*config.Config, error) {
	cfg := config.Default()
	if f.Config != "" {
		var err error
		if cfg, err = config.Load(f.Config); err != nil {
			return nil, err
		}
	}
	if f.Shard != "" {
		sh, err := config.ParseShard(f.Shard)
		if err != nil {
			return nil, fmt.Errorf("--shard: %w", err)
		}
		cfg.Shard = sh
	}
	e := &cfg.AWS.Endpoints
	for _, o := range []struct {
		flag string
		dst  *string
		v    string
	}{
		{"--endpoint.dynamodb", &e.DynamoDB, f.Endpoint.DynamoDB},
		{"--endpoint.cloudwatch", &e.CloudWatch, f.Endpoint.CloudWatch},
		{"--endpoint.application-autoscaling", &e.ApplicationAutoScaling, f.Endpoint.ApplicationAutoScaling},
		{"--endpoint.sts", &e.STS, f.Endpoint.STS},
	} {
		if o.v == "" {
			continue
		}
		if err := config.CheckURL(o.v); err != nil {
			return nil, fmt.Errorf("%s: %w", o.flag, err)
		}
		*o.dst = o.v
	}
	return cfg, nil
}

type logFlags struct {
	Level  string `name:"log.level" help:"Log level: debug, info, warn or error." default:"info" enum:"debug,info,warn,error" env:"DYNAMODB_EXPORTER_LOG_LEVEL"`
	Format string `name:"log.format" help:"Log format: logfmt or json." default:"logfmt" enum:"logfmt,json" env:"DYNAMODB_EXPORTER_LOG_FORMAT"`
}

func (f logFlags) logger(w io.Writer) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(f.Level))
	opts := &slog.HandlerOptions{Level: level}
	if f.Format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// webFlags are the exporter-toolkit web flags, as node_exporter has them
// (kingpinflag.AddFlags), plus the telemetry path. A command embeds them
// with the default listen address set as web_listen_address.
type webFlags struct {
	ListenAddresses []string `name:"web.listen-address" help:"Address to listen on for the web interface and telemetry. Repeatable for several addresses (the environment variable takes a comma-separated list). Examples: :9849, [::1]:9849." default:"${web_listen_address}" env:"DYNAMODB_EXPORTER_WEB_LISTEN_ADDRESS"`
	SystemdSocket   bool     `name:"web.systemd-socket" help:"Use systemd socket activation listeners instead of port listeners (Linux only)." env:"DYNAMODB_EXPORTER_WEB_SYSTEMD_SOCKET"`
	TelemetryPath   string   `name:"web.telemetry-path" help:"Path under which to expose metrics." default:"/metrics" env:"DYNAMODB_EXPORTER_WEB_TELEMETRY_PATH"`
	ConfigFile      string   `name:"web.config.file" help:"Path to an exporter-toolkit web configuration file that can enable TLS or authentication. See: https://github.com/prometheus/exporter-toolkit/blob/master/docs/web-configuration.md" env:"DYNAMODB_EXPORTER_WEB_CONFIG_FILE" type:"path"`
}

type serveCmd struct {
	configFlags
	webFlags `embed:"" set:"web_listen_address=:9849"`
	logFlags
	runtimeFlags
}

// runtimeFlags set the Go garbage collector's knobs (package gcsettings).
type runtimeFlags struct {
	GOGC             *int    `name:"runtime.gogc" help:"Go GC percentage (GOGC): lower trades CPU for memory; negative turns the collector off. Default: the GOGC environment variable, else adapted to the live heap, ${max_gogc} up to ${gogc_headroom_mib} MiB down to ${min_gogc} from ${min_gogc_from_mib} MiB." placeholder:"PERCENT"`
	AutoMemoryLimit  bool    `name:"runtime.auto-gomemlimit" help:"Set the Go soft memory limit (GOMEMLIMIT) to a share of the container's cgroup memory limit, when there is one and GOMEMLIMIT is not set." default:"true" negatable:""`
	MemoryLimitRatio float64 `name:"runtime.auto-gomemlimit.ratio" help:"Share of the cgroup memory limit the soft memory limit is set to, in (0, 1]." default:"${default_gomemlimit_ratio}"`
}

// apply sets the GC knobs, logs what they are and, when the GC percentage
// adapts to the live heap, keeps adapting it until done is closed.
func (f runtimeFlags) apply(done <-chan struct{}, logger *slog.Logger) error {
	a, err := gcsettings.Apply(gcsettings.Settings{GOGC: f.GOGC, AutoMemoryLimit: f.AutoMemoryLimit, MemoryLimitRatio: f.MemoryLimitRatio}, gcsettings.OS())
	if err != nil {
		return err
	}
	logger.Info("go runtime", "gogc", a.GOGC, "gogc_source", a.GOGCSource, "memory_limit_bytes", a.MemoryLimit, "memory_limit_source", a.MemoryLimitSource)
	if a.Adaptive {
		go gcsettings.Tune(done, gcsettings.TuneInterval, func(gogc int) {
			logger.Debug("go runtime: GC percentage adapted to the live heap", "gogc", gogc)
		})
	}
	return nil
}

type checkCmd struct {
	configFlags
	logFlags
}

type versionCmd struct{}

type commandLine struct {
	Serve    serveCmd    `cmd:"" default:"withargs" help:"Run the exporter (the default command)."`
	Check    checkCmd    `cmd:"" help:"Preflight: call each AWS API once per region, name missing IAM permissions, and print the CloudWatch polling plan: each tier's cadence, metrics per hour and monthly cost."`
	Demo     demoCmd     `cmd:"" help:"Run the exporter against the built-in simulated AWS account (no AWS needed)."`
	TTL      ttlCmd      `cmd:"" name:"ttl" help:"TTL tools: audit a table, decode a value."`
	Capacity capacityCmd `cmd:"" help:"Capacity-mode tools: report the derived figures and the cost what-if from CloudWatch history."`
	Replay   replayCmd   `cmd:"" help:"Run a scenario and the exporter in fast-forward and write what Prometheus would have scraped."`
	Alerts   alertsCmd   `cmd:"" help:"Alert pack tools: render the rule files with your thresholds; test what a scenario would fire."`
	Version  versionCmd  `cmd:"" help:"Print the version."`
}

// defaultVersion is reported when the build did not set version.Version
// (go build -ldflags "-X github.com/prometheus/common/version.Version=...").
const defaultVersion = "0.1.0-dev"

// Main parses the process's command line, runs the chosen command until it
// ends or the process receives SIGINT or SIGTERM, and exits the process
// with the command's exit code (1 for an error without one).
func Main() {
	if version.Version == "" {
		version.Version = defaultVersion
	}
	var c commandLine
	kctx := kong.Parse(&c, kongOptions()...)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	kctx.BindTo(ctx, (*context.Context)(nil))
	if err := kctx.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "dynamodb_exporter: %v\n", err)
		var ec exitCoder
		if errors.As(err, &ec) {
			os.Exit(ec.ExitCode())
		}
		os.Exit(1)
	}
}

// kongOptions are the command line's options: its name, description and
// the variables its help and defaults use.
func kongOptions() []kong.Option {
	return []kong.Option{
		kong.Name("dynamodb_exporter"),
		kong.Description("Prometheus exporter for Amazon DynamoDB capacity and TTL health."),
		kong.UsageOnError(),
		kong.Vars{"scenarios": strings.Join(harness.Scenarios(), ", "),
			"min_gogc":                 strconv.Itoa(gcsettings.MinGOGC),
			"max_gogc":                 strconv.Itoa(gcsettings.MaxGOGC),
			"gogc_headroom_mib":        strconv.Itoa(gcsettings.Headroom >> 20),
			"min_gogc_from_mib":        strconv.Itoa(gcsettings.MinGOGCFrom >> 20),
			"default_gomemlimit_ratio": strconv.FormatFloat(gcsettings.DefaultMemoryLimitRatio, 'f', -1, 64)},
	}
}

type exitCoder interface{ ExitCode() int }

type exitError struct {
	msg  string
	code int
}

func (e exitError) Error() string { return e.msg }
func (e exitError) ExitCode() int { return e.code }

// Run runs the exporter until ctx ends.
func (s *serveCmd) Run(ctx context.Context) error {
	logger := s.logger(os.Stderr)
	if err := s.runtimeFlags.apply(ctx.Done(), logger); err != nil {
		return err
	}
	cfg, err := s.load()
	if err != nil {
		return err
	}
	return serve(ctx, cfg, exporter.Options{Logger: logger, RuntimeMetrics: true}, s.webFlags, logger, nil)
}

// serve builds the exporter, starts its background collection and serves
// HTTP on every listener the web flags ask for until ctx ends. ready, when
// not nil, receives the addresses listened on.
func serve(ctx context.Context, cfg *config.Config, opts exporter.Options, web webFlags, logger *slog.Logger, ready func(addrs []string)) error {
	app, err := exporter.Build(ctx, cfg, opts)
	if err != nil {
		return err
	}
	h, err := app.Handler(web.TelemetryPath, logger)
	if err != nil {
		return err
	}
	listeners, err := web.listen()
	if err != nil {
		return err
	}
	addrs := make([]string, len(listeners))
	for i, l := range listeners {
		addrs[i] = l.Addr().String()
	}
	logger.Info("starting dynamodb_exporter", "version", version.Info(), "addresses", strings.Join(addrs, ","),
		"telemetry_path", web.TelemetryPath, "targets", len(app.Targets))
	if ready != nil {
		ready(addrs)
	}
	go app.Scheduler.Run(ctx)
	return exporter.ServeAll(ctx, listeners, h, web.ConfigFile, logger)
}

// listen opens the listeners the web flags ask for: systemd's activated
// sockets with --web.systemd-socket, else one per --web.listen-address.
func (w webFlags) listen() ([]net.Listener, error) {
	if w.SystemdSocket {
		// Listeners unsets LISTEN_PID and LISTEN_FDS, as sd_listen_fds(3)
		// with unset_environment does; descriptors that are not stream
		// sockets come back nil.
		all, err := activation.Listeners()
		if err != nil {
			return nil, fmt.Errorf("--web.systemd-socket: %w", err)
		}
		var listeners []net.Listener
		for _, l := range all {
			if l != nil {
				listeners = append(listeners, l)
			}
		}
		if len(listeners) == 0 {
			return nil, errors.New("--web.systemd-socket: systemd passed no listening socket " +
				"(LISTEN_PID and LISTEN_FDS unset or not for this process): start the exporter from a .socket unit, " +
				"or drop the flag and use --web.listen-address")
		}
		return listeners, nil
	}
	if len(w.ListenAddresses) == 0 {
		return nil, errors.New("--web.listen-address: no address to listen on (give at least one, or --web.systemd-socket)")
	}
	listeners := make([]net.Listener, 0, len(w.ListenAddresses))
	for _, addr := range w.ListenAddresses {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			for _, opened := range listeners {
				opened.Close()
			}
			return nil, fmt.Errorf("--web.listen-address %q: %w", addr, err)
		}
		listeners = append(listeners, l)
	}
	return listeners, nil
}

// Run runs the preflight check.
func (c *checkCmd) Run(ctx context.Context) error {
	logger := c.logger(os.Stderr)
	cfg, err := c.load()
	if err != nil {
		return err
	}
	app, err := exporter.Build(ctx, cfg, exporter.Options{Logger: logger, AWS: awsclient.Options{MaxAttempts: 1}})
	if err != nil {
		return err
	}
	if res := preflight.Run(ctx, app, os.Stdout); !res.OK() {
		return exitError{msg: "preflight failed", code: 2}
	}
	return nil
}

// Run prints the version.
func (versionCmd) Run() error {
	fmt.Println(version.Print("dynamodb_exporter"))
	return nil
}
