package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/bradleyfalzon/ghinstallation/v2"
	gh "github.com/google/go-github/v88/github"

	"github.com/prodready/prodready/bot"
)

// DefaultBaseURL is GitHub.com's REST API.
const DefaultBaseURL = "https://api.github.com/"

// AppConfig configures a GitHub App.
type AppConfig struct {
	// AppID is the GitHub App's id.
	AppID int64
	// PrivateKey is the app's PEM-encoded RSA private key.
	PrivateKey []byte
	// BaseURL is the REST API root (DefaultBaseURL when empty); for GitHub
	// Enterprise Server, "https://HOST/api/v3/".
	BaseURL string
	// CheckName names the check run (DefaultCheckName when empty).
	CheckName string
	// BotLogin is the app's bot user, e.g. "prodready[bot]" (optional).
	BotLogin string
	// Transport sends requests (http.DefaultTransport when nil).
	Transport http.RoundTripper
	// RetryBudget bounds waiting per API call (DefaultRetryBudget when 0).
	RetryBudget time.Duration
	Metrics     *bot.Metrics
}

// App acts as a GitHub App: it signs JWTs with the app's key, exchanges
// them for installation tokens (ghinstallation, which caches and renews
// them) and hands out one Host per installation.
type App struct {
	cfg   AppConfig
	retry *RetryTransport

	mu    sync.Mutex
	hosts map[int64]*Host
}

// NewApp checks cfg (app id, a parseable private key) and returns the App.
func NewApp(cfg AppConfig) (*App, error) {
	if cfg.AppID <= 0 {
		return nil, errors.New("GitHub App id is not set")
	}
	if len(cfg.PrivateKey) == 0 {
		return nil, errors.New("GitHub App private key is not set")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	if !strings.HasSuffix(cfg.BaseURL, "/") {
		cfg.BaseURL += "/"
	}
	retry := &RetryTransport{Base: cfg.Transport, Budget: cfg.RetryBudget, Metrics: cfg.Metrics}
	if _, err := ghinstallation.NewAppsTransport(retry, cfg.AppID, cfg.PrivateKey); err != nil {
		return nil, fmt.Errorf("reading GitHub App private key: %w", err)
	}
	return &App{cfg: cfg, retry: retry, hosts: map[int64]*Host{}}, nil
}

// Retry returns the transport that retries and waits for rate limits (to
// tune it, e.g. in tests).
func (a *App) Retry() *RetryTransport { return a.retry }

// Host returns the Host acting as installation id (one per installation,
// reused so its token is cached).
func (a *App) Host(installationID int64) (bot.Host, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if h, ok := a.hosts[installationID]; ok {
		return h, nil
	}
	itr, err := ghinstallation.New(a.retry, a.cfg.AppID, installationID, a.cfg.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("installation %d: %w", installationID, err)
	}
	itr.BaseURL = strings.TrimSuffix(a.cfg.BaseURL, "/")
	h, err := NewHost(&http.Client{Transport: itr, Timeout: 5 * time.Minute}, a.cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	h.CheckName, h.BotLogin, h.AppID = a.cfg.CheckName, a.cfg.BotLogin, a.cfg.AppID
	h.perms = &installationPerms{get: a.installationPermissions(installationID)}
	// Tarball downloads retry like API calls but carry no installation
	// token: the link GitHub answers with holds its own.
	h.archiveClient = &http.Client{Transport: a.retry, Timeout: 5 * time.Minute}
	a.hosts[installationID] = h
	return h, nil
}

// installationPermissions returns the func that reads installation id's
// permissions with GET /app/installations/{id}, as the App (its JWT).
func (a *App) installationPermissions(id int64) func(ctx context.Context) (*gh.InstallationPermissions, error) {
	return func(ctx context.Context) (*gh.InstallationPermissions, error) {
		atr, err := ghinstallation.NewAppsTransport(a.retry, a.cfg.AppID, a.cfg.PrivateKey)
		if err != nil {
			return nil, err
		}
		atr.BaseURL = strings.TrimSuffix(a.cfg.BaseURL, "/")
		base := a.cfg.BaseURL
		c, err := gh.NewClient(gh.WithHTTPClient(&http.Client{Transport: atr, Timeout: time.Minute}), gh.WithDisableRateLimitCheck(), gh.WithUserAgent("prodready"), gh.WithURLs(&base, nil))
		if err != nil {
			return nil, err
		}
		inst, _, err := c.Apps.GetInstallation(ctx, id)
		if err != nil {
			return nil, err
		}
		return inst.GetPermissions(), nil
	}
}
