package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/bot/jsqueue"
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
var serveHosts = []func(fs *flag.FlagSet) func(env ServeEnv) (bool, error){githubServeHost}

// envDefault returns the environment variable's value, or def.
func envDefault(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	if v, ok := os.LookupEnv(name); ok {
		if n, err := strconv.Atoi(v); err == nil {
			return n
		}
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if v, ok := os.LookupEnv(name); ok {
		if d, err := time.ParseDuration(v); err == nil {
			return d
		}
	}
	return def
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

func githubServeHost(fs *flag.FlagSet) func(env ServeEnv) (bool, error) {
	appID := fs.Int64("github-app-id", int64(envInt("GITHUB_APP_ID", 0)), "GitHub App id (env GITHUB_APP_ID); GitHub is served when set")
	keyFile := fs.String("github-private-key-file", envDefault("GITHUB_PRIVATE_KEY_FILE", ""), "file holding the GitHub App's PEM private key (env GITHUB_PRIVATE_KEY_FILE)")
	secretFile := fs.String("github-webhook-secret-file", envDefault("GITHUB_WEBHOOK_SECRET_FILE", ""), "file holding the webhook secret (env GITHUB_WEBHOOK_SECRET_FILE); required")
	baseURL := fs.String("github-base-url", envDefault("GITHUB_BASE_URL", ghv.DefaultBaseURL), "GitHub REST API root; for GitHub Enterprise Server https://HOST/api/v3/ (env GITHUB_BASE_URL)")
	botLogin := fs.String("github-bot-login", envDefault("GITHUB_BOT_LOGIN", ""), "the app's bot user, e.g. prodready[bot], to recognise its own comments (env GITHUB_BOT_LOGIN)")
	checkName := fs.String("github-check-name", envDefault("GITHUB_CHECK_NAME", ghv.DefaultCheckName), "name of the check run (env GITHUB_CHECK_NAME)")
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
	budget  *int64
	queue   queueFlags
	workers *int
	render  *renderFlags
}

func addServeFlags(fs *flag.FlagSet) *serveFlags {
	f := &serveFlags{
		listen:  fs.String("listen", envDefault("PRODREADY_LISTEN", ":8080"), "address to listen on (env PRODREADY_LISTEN)"),
		workers: fs.Int("workers", envInt("PRODREADY_WORKERS", jsqueue.DefaultConfig.Workers), "reviews this replica runs at once (env PRODREADY_WORKERS)"),
		grace:   fs.Duration("shutdown-grace", envDuration("PRODREADY_SHUTDOWN_GRACE", 60*time.Second), "time running reviews get to finish on SIGTERM; queued jobs stay in the stream (env PRODREADY_SHUTDOWN_GRACE)"),
		cache:   fs.Int("cache-bytes", envInt("PRODREADY_CACHE_BYTES", 64<<20), "size of the manifest cache (env PRODREADY_CACHE_BYTES)"),
		budget:  fs.Int64("body-budget", int64(envInt("PRODREADY_BODY_BUDGET", bot.DefaultBodyBudget)), "bytes of webhook bodies held at once, across routes; beyond it a delivery gets 503 before its body is read; at least 25 MiB (env PRODREADY_BODY_BUDGET)"),
	}
	addQueueFlags(fs, &f.queue)
	f.render = addRenderFlags(fs)
	return f
}

func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flags := addServeFlags(fs)
	var setups []func(ServeEnv) (bool, error)
	for _, h := range serveHosts {
		setups = append(setups, h(fs))
	}
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: prodready serve [flags]\n\nRuns the webhook server. Secrets are read from files named by flags or environment, never from the command line.")
		fs.PrintDefaults()
	}
	if _, err := cli.ParseFlags(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cli.ExitOK
		}
		return cli.ExitUsage
	}
	logger := slog.New(slog.NewJSONHandler(stdout, nil))
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
	opened, closeQueue, err := flags.queue.open(bot.Dispatch(rv.Run, ap.Run), hostFor, metrics, logger)
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
