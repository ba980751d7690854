package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/bot/jsqueue"
	"github.com/prodready/prodready/checks/rendercache"
	"github.com/prodready/prodready/cmd/internal/cli"
	ghv "github.com/prodready/prodready/vcs/github"
)

// ServeEnv is what a host's webhook setup gets once flags are parsed.
type ServeEnv struct {
	Server  *bot.Server
	Queue   bot.Enqueuer
	Metrics *bot.Metrics
	Logger  *slog.Logger
	// Budget bounds the webhook bodies held at once, across routes.
	Budget *bot.BodyBudget
	// Hosts is where each setup says which Host acts for a job of its
	// host, read back from the queue on any replica (by PR.Host).
	Hosts map[string]bot.HostFor
}

// serveHosts are the webhook hosts `serve` can run. Each defines its flags
// on fs and returns a setup that registers its route (false when the host
// is not configured). Other files add theirs in init, e.g. GitLab.
var serveHosts = []func(fs *pflag.FlagSet) func(env ServeEnv) (bool, error){githubServeHost}

// bindEnv gives each flag of fs named in pairs (flag, variable, flag,
// variable…) its environment variable (cli.BindEnv).
func bindEnv(fs *pflag.FlagSet, pairs ...string) {
	for i := 0; i+1 < len(pairs); i += 2 {
		cli.BindEnv(fs, pairs[i], pairs[i+1])
	}
}

// readSecretFile reads a secret from a file, trimming surrounding space.
func readSecretFile(what, path string) ([]byte, error) {
	if path == "" {
		return nil, fmt.Errorf("%s file is not set", what)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s file: %w", what, err)
	}
	data = []byte(strings.TrimSpace(string(data)))
	if len(data) == 0 {
		return nil, fmt.Errorf("%s file %s is empty", what, path)
	}
	return data, nil
}

func githubServeHost(fs *pflag.FlagSet) func(env ServeEnv) (bool, error) {
	appID := fs.Int64("github-app-id", 0, "GitHub App id; GitHub is served when set")
	keyFile := fs.String("github-private-key-file", "", "file holding the GitHub App's PEM private key")
	secretFile := fs.String("github-webhook-secret-file", "", "file holding the webhook secret; required")
	baseURL := fs.String("github-base-url", ghv.DefaultBaseURL, "GitHub REST API root; for GitHub Enterprise Server https://HOST/api/v3/")
	botLogin := fs.String("github-bot-login", "", "the app's bot user, e.g. prodready[bot], to recognise its own comments")
	checkName := fs.String("github-check-name", ghv.DefaultCheckName, "name of the check run")
	bindEnv(fs, "github-app-id", "GITHUB_APP_ID", "github-private-key-file", "GITHUB_PRIVATE_KEY_FILE", "github-webhook-secret-file", "GITHUB_WEBHOOK_SECRET_FILE",
		"github-base-url", "GITHUB_BASE_URL", "github-bot-login", "GITHUB_BOT_LOGIN", "github-check-name", "GITHUB_CHECK_NAME")
	return func(env ServeEnv) (bool, error) {
		if *appID == 0 {
			return false, nil
		}
		secret, err := readSecretFile("GitHub webhook secret", *secretFile)
		if err != nil {
			return false, fmt.Errorf("%w: without a secret no delivery can be verified", err)
		}
		key, err := readSecretFile("GitHub App private key", *keyFile)
		if err != nil {
			return false, err
		}
		app, err := ghv.NewApp(ghv.AppConfig{AppID: *appID, PrivateKey: key, BaseURL: *baseURL, CheckName: *checkName, BotLogin: *botLogin, Metrics: env.Metrics})
		if err != nil {
			return false, err
		}
		env.Server.Handle("POST", "/webhooks/github", &bot.Webhook{Intake: ghv.Intake{HostFor: app.Host}, Secret: secret, Queue: env.Queue, Budget: env.Budget, Metrics: env.Metrics, Logger: env.Logger})
		env.Hosts["github"] = func(job bot.Job) (bot.Host, error) {
			if job.Installation == 0 {
				return nil, fmt.Errorf("job %s names no GitHub App installation", job.DeliveryID)
			}
			return app.Host(job.Installation)
		}
		env.Logger.Info("serving GitHub webhooks", "path", "/webhooks/github", "app_id", *appID, "api", *baseURL)
		return true, nil
	}
}

// serveFlags are runServe's own flags (the hosts add theirs).
type serveFlags struct {
	listen  *string
	grace   *time.Duration
	cache   *int
	renders *int
	budget  *int64
	queue   queueFlags
	workers *int
	render  *renderFlags
	// logLevel is the lowest level logged.
	logLevel *logLevel
}

func addServeFlags(fs *pflag.FlagSet) *serveFlags {
	f := &serveFlags{
		logLevel: &logLevel{level: slog.LevelInfo},
		listen:   fs.String("listen", ":8080", "address to listen on"),
		workers:  fs.Int("workers", jsqueue.DefaultConfig.Workers, "reviews this replica runs at once"),
		grace:    fs.Duration("shutdown-grace", 60*time.Second, "time running reviews get to finish on SIGTERM; queued jobs stay in the stream"),
		cache:    fs.Int("cache-bytes", 64<<20, "size of the review cache: blobs, their parses, the rules' findings on them, and base commits' runs"),
		renders:  fs.Int("render-cache-bytes", 32<<20, "size of the cache of rendered charts and built overlays, kept by the hash of their inputs"),
		budget:   fs.Int64("body-budget", bot.DefaultBodyBudget, "bytes of webhook bodies held at once, across routes; beyond it a delivery gets 503 before its body is read; at least 25 MiB"),
	}
	fs.Var(f.logLevel, "log-level", "lowest level of the JSON log lines written: debug, info, warn or error")
	bindEnv(fs, "log-level", "PRODREADY_LOG_LEVEL", "listen", "PRODREADY_LISTEN", "workers", "PRODREADY_WORKERS", "shutdown-grace", "PRODREADY_SHUTDOWN_GRACE", "cache-bytes", "PRODREADY_CACHE_BYTES", "render-cache-bytes", "PRODREADY_RENDER_CACHE_BYTES", "body-budget", "PRODREADY_BODY_BUDGET")
	addQueueFlags(fs, &f.queue)
	f.render = addRenderFlags(fs)
	return f
}

// serveCommand is `prodready serve`.
func serveCommand(std cli.IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "Run the GitHub App / GitLab webhook server",
		Long: `Runs the webhook server of the GitHub App and the GitLab integration. Secrets
are read from files named by flags or environment variables, never from the
command line. Every flag has an environment variable (docs/flags.md).`,
		Args: cobra.NoArgs,
	}
	fs := cmd.Flags()
	flags := addServeFlags(fs)
	var setups []func(ServeEnv) (bool, error)
	for _, h := range serveHosts {
		setups = append(setups, h(fs))
	}
	cmd.RunE = func(*cobra.Command, []string) error {
		return cli.Exit(runServe(flags, setups, std.Out))
	}
	return cmd
}

// logLevels are the values of --log-level.
var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

// logLevel is the --log-level flag: debug, info, warn or error.
type logLevel struct{ level slog.Level }

func (l *logLevel) String() string {
	for name, v := range logLevels {
		if v == l.level {
			return name
		}
	}
	return l.level.String()
}

func (l *logLevel) Set(v string) error {
	lv, ok := logLevels[strings.ToLower(v)]
	if !ok {
		return fmt.Errorf("want debug, info, warn or error, not %q", v)
	}
	l.level = lv
	return nil
}

// Type is the word help shows for the flag's value.
func (l *logLevel) Type() string { return "level" }

func runServe(flags *serveFlags, setups []func(ServeEnv) (bool, error), stdout io.Writer) int {
	logger := slog.New(slog.NewJSONHandler(stdout, &slog.HandlerOptions{Level: flags.logLevel.level}))
	defer logStrayStderr(logger)()
	if *flags.budget < bot.MaxWebhookBody {
		logger.Error("refusing to start: --body-budget is below the largest webhook body", "body_budget", *flags.budget, "max_body", bot.MaxWebhookBody)
		return cli.ExitUsage
	}
	// Pull-request content renders in child processes of this binary,
	// under limits: a chart that runs away is a finding, not the end of
	// the replica.
	isolated, err := flags.render.renderer()
	if err != nil {
		logger.Error("refusing to start", "err", err.Error())
		return cli.ExitUsage
	}
	// A chart or overlay whose inputs did not change since a push (or
	// another pull request) rendered it is not rendered again.
	isolated = rendercache.New(*flags.renders).Wrap(isolated)
	metrics := bot.NewMetrics()
	rv := bot.NewReviewer(bot.NewLRUCache(*flags.cache), logger)
	rv.Render = isolated                             // the charts and overlays a pull request touches
	ap := bot.NewApplier(rv.Cache, isolated, logger) // Apply fixes, /prodready fix
	ap.Scope = rv.ReportedScope                      // the fixes of what the review reports

	hosts := map[string]bot.HostFor{}
	hostFor := func(job bot.Job) (bot.Host, error) {
		h := hosts[job.PR.Host]
		if h == nil {
			return nil, fmt.Errorf("this replica serves no %q host", job.PR.Host)
		}
		return h(job)
	}
	// The hosts are set up (and their configuration checked) before the
	// queue opens: a bad flag starts no NATS server.
	q := &queueRef{}
	srv := bot.NewServer(q, metrics, logger)
	env := ServeEnv{Server: srv, Queue: q, Metrics: metrics, Logger: logger, Budget: bot.NewBodyBudget(*flags.budget), Hosts: hosts}
	served := 0
	for _, setup := range setups {
		ok, err := setup(env)
		if err != nil {
			logger.Error("refusing to start", "err", err.Error())
			return cli.ExitUsage
		}
		if ok {
			served++
		}
	}
	if served == 0 {
		logger.Error("refusing to start: no host configured (set --github-app-id with its key and webhook secret files)")
		return cli.ExitUsage
	}
	flags.queue.workers = *flags.workers
	opened, closeQueue, err := flags.queue.open(collectWhenIdle(bot.Dispatch(rv.Run, ap.Run), runtime.GC), hostFor, metrics, logger)
	if err != nil {
		logger.Error("refusing to start: no queue", "err", err.Error())
		return cli.ExitUsage
	}
	defer closeQueue()
	q.Queue = opened
	l, err := net.Listen("tcp", *flags.listen)
	if err != nil {
		logger.Error("cannot listen", "addr", *flags.listen, "err", err.Error())
		return cli.ExitUsage
	}
	return serveUntilSignal(srv, q, l, *flags.grace, logger)
}

// queueRef is the queue the server and routes are given before it is
// opened; it is set before the server serves.
type queueRef struct{ bot.Queue }

// serveUntilSignal serves until SIGTERM or SIGINT, then shuts down within
// grace and returns 0.
func serveUntilSignal(srv *bot.Server, q bot.Queue, l net.Listener, grace time.Duration, logger *slog.Logger) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	q.Start()
	srv.SetReady(true)
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	logger.Info("listening", "addr", l.Addr().String())
	select {
	case err := <-errc:
		if err != nil {
			logger.Error("server stopped", "err", err.Error())
			return 1
		}
		return cli.ExitOK
	case <-ctx.Done():
	}
	logger.Info("shutting down", "grace", grace.String())
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		logger.Warn("grace period over; unfinished reviews are back in the queue for another replica", "err", err.Error())
	}
	<-errc
	logger.Info("stopped")
	return cli.ExitOK
}

// collectWhenIdle wraps a job handler so that, under a memory limit
// (GOMEMLIMIT, as deploy/ sets it), collect runs once when the last
// running job ends (serve passes runtime.GC, which hands no pages back to
// the system): the next review then starts with the room under the limit that
// the last one's garbage took, and a push at 50,000 objects runs one
// collection while the author waits instead of two (docs/performance-log.md,
// "Reviews, push after push"). Without a limit the collector's goal is twice
// the live heap, and a collection at idle would only cost CPU.
func collectWhenIdle(handle func(ctx context.Context, job bot.Job) error, collect func()) func(ctx context.Context, job bot.Job) error {
	if debug.SetMemoryLimit(-1) == math.MaxInt64 {
		return handle
	}
	var running atomic.Int64
	return func(ctx context.Context, job bot.Job) error {
		running.Add(1)
		err := handle(ctx, job)
		if running.Add(-1) == 0 {
			collect()
		}
		return err
	}
}
