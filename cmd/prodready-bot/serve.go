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
	"github.com/prodready/prodready/checks/render"
	"github.com/prodready/prodready/cmd/internal/cli"
	ghv "github.com/prodready/prodready/vcs/github"
)

// ServeEnv is what a host's webhook setup gets once flags are parsed.
type ServeEnv struct {
	Server  *bot.Server
	Queue   bot.Enqueuer
	Metrics *bot.Metrics
	Logger  *slog.Logger
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
		env.Server.Handle("POST", "/webhooks/github", &bot.Webhook{Intake: ghv.Intake{HostFor: app.Host}, Secret: secret, Queue: env.Queue, Metrics: env.Metrics, Logger: env.Logger})
		env.Logger.Info("serving GitHub webhooks", "path", "/webhooks/github", "app_id", *appID, "api", *baseURL)
		return true, nil
	}
}

func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", envDefault("PRODREADY_LISTEN", ":8080"), "address to listen on (env PRODREADY_LISTEN)")
	workers := fs.Int("workers", envInt("PRODREADY_WORKERS", 4), "reviews that run at once (env PRODREADY_WORKERS)")
	queueSize := fs.Int("queue-size", envInt("PRODREADY_QUEUE_SIZE", 100), "reviews that may wait; beyond it deliveries get 503 (env PRODREADY_QUEUE_SIZE)")
	grace := fs.Duration("shutdown-grace", envDuration("PRODREADY_SHUTDOWN_GRACE", 60*time.Second), "time running reviews get to finish on SIGTERM (env PRODREADY_SHUTDOWN_GRACE)")
	cacheBytes := fs.Int("cache-bytes", envInt("PRODREADY_CACHE_BYTES", 64<<20), "size of the manifest cache (env PRODREADY_CACHE_BYTES)")
	var setups []func(ServeEnv) (bool, error)
	for _, h := range serveHosts {
		setups = append(setups, h(fs))
	}
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: prodready-bot serve [flags]\n\nRuns the webhook server. Secrets are read from files named by flags or environment, never from the command line.")
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
	metrics := bot.NewMetrics()
	rv := bot.NewReviewer(bot.NewLRUCache(*cacheBytes), logger)
	rv.Render = render.InProcess                             // the charts and overlays a pull request touches
	ap := bot.NewApplier(rv.Cache, render.InProcess, logger) // Apply fixes, /prodready fix
	ap.Scope = rv.ReportedScope                              // the fixes of what the review reports
	pool := bot.NewPool(bot.Dispatch(rv.Run, ap.Run), bot.PoolOptions{Workers: *workers, QueueSize: *queueSize, Logger: logger, Metrics: metrics})
	srv := bot.NewServer(pool, metrics, logger)
	env := ServeEnv{Server: srv, Queue: pool, Metrics: metrics, Logger: logger}
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
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		logger.Error("cannot listen", "addr", *listen, "err", err.Error())
		return cli.ExitUsage
	}
	return serveUntilSignal(srv, pool, l, *grace, logger)
}

// serveUntilSignal serves until SIGTERM or SIGINT, then shuts down within
// grace and returns 0.
func serveUntilSignal(srv *bot.Server, pool *bot.Pool, l net.Listener, grace time.Duration, logger *slog.Logger) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	pool.Start()
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
		logger.Warn("grace period over; unfinished reviews were ended with a note to re-run", "err", err.Error())
	}
	<-errc
	logger.Info("stopped")
	return cli.ExitOK
}
