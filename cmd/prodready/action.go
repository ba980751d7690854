package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/checks/rendered"
	"github.com/prodready/prodready/checks/report"
	"github.com/prodready/prodready/checks/scan"
	"github.com/prodready/prodready/cmd/internal/cli"
	"github.com/prodready/prodready/internal/plural"
	"github.com/prodready/prodready/vcs/ghaction"
	ghv "github.com/prodready/prodready/vcs/github"
)

// Action modes of `prodready action`.
const (
	modeReview      = "review"
	modeAnnotations = "annotations"
	modeSARIF       = "sarif"
)

// actionOptions are the flags of `prodready action` (the inputs of
// action.yml).
type actionOptions struct {
	mode      string
	failOn    string
	config    string
	paths     string
	sarifFile string
	checkName string
	render    *renderFlags
	// renderer renders the pull request's charts and overlays in child
	// processes under the render flags' limits (set by runAction).
	renderer rendered.Renderer
}

// addActionFlags registers the flags of the action command on fs.
func addActionFlags(fs *pflag.FlagSet) *actionOptions {
	o := &actionOptions{}
	fs.StringVar(&o.mode, "mode", modeReview, "review (inline comments, check run, job summary), annotations (workflow-command annotations and job summary) or sarif (a SARIF file for code scanning)")
	fs.StringVar(&o.failOn, "fail-on", "", "lowest severity that makes the exit code 1: info, warning, error or none (default: the config's failOn, else error)")
	fs.StringVar(&o.config, "config", "", "config file relative to the repository root, read at the pull request's base commit (default .prodready.yaml)")
	fs.StringVar(&o.paths, "paths", ".", "folders or files to review, relative to the repository root, separated by spaces, commas or newlines")
	fs.StringVar(&o.sarifFile, "sarif-file", "prodready.sarif", "with --mode sarif: the SARIF file to write")
	fs.StringVar(&o.checkName, "check-name", ghv.DefaultCheckName, "name of the check run")
	o.render = addRenderFlags(fs)
	return o
}

// actionRun is one run of the Action: where to write, and the notes that
// go to the log and the job summary.
type actionRun struct {
	opts   *actionOptions
	env    ghaction.Env
	stdout io.Writer
	stderr io.Writer
	notes  []string
}

// note prints msg to the log now and keeps it for the job summary.
func (a *actionRun) note(msg string) {
	fmt.Fprintln(a.stdout, "prodready:", msg)
	a.notes = append(a.notes, msg)
}

// warn prints msg as a workflow-command warning (shown on the run's page)
// and keeps it for the job summary.
func (a *actionRun) warn(msg string) {
	fmt.Fprintf(a.stdout, "::warning title=prodready::%s\n", report.EscapeWorkflowMessage(msg))
	a.notes = append(a.notes, msg)
}

func (a *actionRun) fail(err error) int {
	fmt.Fprintf(a.stdout, "::error title=prodready::%s\n", report.EscapeWorkflowMessage(err.Error()))
	fmt.Fprintln(a.stderr, "prodready action:", err)
	return cli.ExitUsage
}

// splitPaths splits the paths input on spaces, commas and newlines.
func splitPaths(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' })
}

// actionCommand is `prodready action`: it reviews the pull request of
// GITHUB_EVENT_PATH in the checkout and publishes with the token in
// GITHUB_TOKEN.
func actionCommand(std cli.IO) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "action [flags]",
		Short: "Review a pull request as the GitHub Action step",
		Long: `Runs as the GitHub Action step: reviews the pull request of GITHUB_EVENT_PATH
in the checkout and publishes with the token in GITHUB_TOKEN (see
docs/action.md). action.yml passes its inputs as these flags.`,
		Args: cobra.NoArgs,
	}
	var dir string
	cmd.Flags().StringVarP(&dir, "directory", "C", "", "the checkout (default: GITHUB_WORKSPACE)")
	o := addActionFlags(cmd.Flags())
	cmd.RegisterFlagCompletionFunc("mode", cobra.FixedCompletions([]string{modeReview, modeAnnotations, modeSARIF}, cobra.ShellCompDirectiveNoFileComp))
	cmd.RunE = func(*cobra.Command, []string) error {
		return cli.Exit(runAction(o, dir, std.Out, std.Err))
	}
	return cmd
}

// runAction is the action command with its flags read. dir is the
// checkout (GITHUB_WORKSPACE when empty).
func runAction(o *actionOptions, dir string, stdout, stderr io.Writer) int {
	a := &actionRun{opts: o, env: ghaction.EnvFrom(os.Getenv), stdout: stdout, stderr: stderr}
	switch o.mode {
	case modeReview, modeAnnotations, modeSARIF:
	default:
		fmt.Fprintf(stderr, "prodready action: unknown --mode %q (review, annotations or sarif)\n", o.mode)
		return cli.ExitUsage
	}
	if o.renderer == nil {
		r, err := o.render.renderer()
		if err != nil {
			fmt.Fprintln(stderr, "prodready action:", err)
			return cli.ExitUsage
		}
		o.renderer = r
	}
	var failOn checks.Severity
	if o.failOn != "" {
		sev, err := checks.ParseSeverity(o.failOn)
		if err != nil {
			fmt.Fprintln(stderr, "prodready action: --fail-on:", err)
			return cli.ExitUsage
		}
		failOn = sev
	}
	if dir == "" {
		dir = a.env.Workspace
	}
	host := &ghaction.Host{Dir: dir, ConfigPath: o.config, Paths: splitPaths(o.paths), Notes: a.note}
	pr, err := ghaction.ReadEvent(a.env.EventPath)
	if errors.Is(err, ghaction.ErrNoPullRequest) {
		return a.tree(host, failOn)
	}
	if err != nil {
		return a.fail(err)
	}
	ctx := context.Background()
	if o.mode == modeReview {
		a.connect(host, pr)
	}
	if o.config != "" {
		if data, err := host.ReadFile(ctx, pr, pr.BaseSHA, checks.ConfigFileName); err == nil && data == nil {
			a.warn(fmt.Sprintf("the config %s does not exist at the base commit %s: the default configuration applies", o.config, pr.BaseSHA))
		}
	}
	cfg, err := bot.LoadConfig(ctx, host, pr)
	if err != nil {
		return a.fail(err)
	}
	if failOn != 0 {
		cfg.SetFailOn(failOn)
	}
	if pr.Draft && !cfg.Review.Drafts {
		a.note("draft pull request not reviewed (review.drafts is false in the config at base)")
		return a.finish(fmt.Sprintf("## prodready\n\nDraft pull request #%d not reviewed: set `review.drafts: true` in `%s` to review drafts.\n", pr.Number, checks.ConfigFileName), cli.ExitOK)
	}
	if o.mode == modeSARIF {
		return a.sarif(host, cfg, func(want func(string) bool) ([]bot.File, error) {
			return host.Manifests(ctx, pr, "", bot.WantEach(want), nil)
		})
	}
	return a.review(ctx, host, pr, cfg)
}

// connect gives host the API to publish with, or sets its fallback when
// the token cannot write: a fork pull request's workflow token is
// read-only.
func (a *actionRun) connect(host *ghaction.Host, pr bot.PullRequest) {
	if pr.Fork {
		host.Fallback = "this pull request comes from a fork, whose workflow token is read-only"
		return
	}
	api, err := ghaction.NewAPI(os.Getenv("GITHUB_TOKEN"), a.env.RESTBase(), a.opts.checkName, nil)
	if err != nil {
		host.Fallback = err.Error()
		return
	}
	host.API = api
}

// review runs the review and publishes it through host (or, in the
// fallback and in annotations mode, prints it as annotations).
func (a *actionRun) review(ctx context.Context, host *ghaction.Host, pr bot.PullRequest, cfg *checks.Config) int {
	rv := bot.NewReviewer(nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	rv.Render = a.opts.renderer
	ctx = bot.WithLogger(ctx, slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	rh, err := host.StartReview(ctx, pr)
	if err != nil {
		return a.fail(fmt.Errorf("starting the check run: %w", err))
	}
	r, err := rv.Prepare(ctx, host, pr, cfg)
	if err == nil {
		err = host.Publish(ctx, pr, rh, r)
	}
	if err != nil {
		if ferr := host.Fail(ctx, pr, rh, "prodready could not finish this review: "+err.Error()); ferr != nil {
			err = errors.Join(err, ferr)
		}
		return a.fail(err)
	}
	fallback := host.Fallback != "" && a.opts.mode == modeReview
	if fallback {
		a.warn("prodready could not post a review (" + host.Fallback + "): its findings are shown as annotations of this workflow run and in the job summary instead.")
	}
	if a.opts.mode == modeAnnotations || fallback {
		if err := report.WriteWith(a.stdout, "github", &checks.Result{Findings: r.Findings}, a.annotationOptions()); err != nil {
			return a.fail(err)
		}
	} else {
		fmt.Fprintf(a.stdout, "prodready: reviewed %s#%d: %s (those already on the pull request are not repeated); check run %q: %s (%s)\n", pr.Repo, pr.Number, plural.Count(len(r.Comments), "inline comment", "inline comments"), a.opts.checkName, r.Conclusion, r.Title)
	}
	code := cli.ExitOK
	if r.Conclusion == "failure" {
		code = cli.ExitFindings
	}
	return a.finish(r.Summary, code)
}

// sarif checks every wanted file (all of them, not only the changed ones:
// code scanning compares whole analyses) and writes the SARIF file.
func (a *actionRun) sarif(host *ghaction.Host, cfg *checks.Config, load func(want func(string) bool) ([]bot.File, error)) int {
	files, err := load(manifestsWanted(host, cfg))
	if err != nil {
		return a.fail(err)
	}
	res := a.checkFiles(host, files, cfg)
	path := a.opts.sarifFile
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return a.fail(fmt.Errorf("creating the SARIF file's folder: %w", err))
	}
	f, err := os.Create(path)
	if err != nil {
		return a.fail(fmt.Errorf("creating the SARIF file: %w", err))
	}
	werr := report.SARIF(f, res, cli.Version(version))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return a.fail(fmt.Errorf("writing %s: %w", path, werr))
	}
	if out := os.Getenv("GITHUB_OUTPUT"); out != "" {
		if err := appendFile(out, "sarif-file="+path+"\n"); err != nil {
			return a.fail(fmt.Errorf("setting the sarif-file output: %w", err))
		}
	}
	fmt.Fprintf(a.stdout, "prodready: wrote %s: %s in %s (%s)\n", path, plural.Count(len(res.Findings), "finding", "findings"), plural.Count(len(files), "file", "files"), bot.Title(res.Findings))
	code := cli.ExitOK
	if res.Failed(cfg) {
		code = cli.ExitFindings
	}
	r := bot.Review{Findings: res.Findings, Outside: res.Findings}
	return a.finish(bot.Summary(r, cfg.FailOnSeverity())+fmt.Sprintf("\nSARIF written to `%s` for code scanning.\n", path), code)
}

// tree handles an event without a pull request (push, schedule,
// workflow_dispatch): it checks every wanted file of the working tree with
// the working tree's config, as annotations or SARIF.
func (a *actionRun) tree(host *ghaction.Host, failOn checks.Severity) int {
	root := host.Dir
	if root == "" {
		root = "."
	}
	cfgPath := a.opts.config
	if cfgPath == "" {
		cfgPath = checks.ConfigFileName
	}
	cfg := checks.DefaultConfig(catalog.Default())
	data, err := os.ReadFile(filepath.Join(root, cfgPath))
	switch {
	case errors.Is(err, os.ErrNotExist):
		if a.opts.config != "" {
			a.warn(fmt.Sprintf("the config %s does not exist: the default configuration applies", a.opts.config))
		}
	case err != nil:
		return a.fail(fmt.Errorf("reading config: %w", err))
	default:
		// Named by its path in the repository, as the review's errors name it.
		if cfg, err = checks.ParseConfigFile(host.ConfigName(), data, catalog.Default()); err != nil {
			return a.fail(err)
		}
	}
	if failOn != 0 {
		cfg.SetFailOn(failOn)
	}
	if a.opts.mode == modeSARIF {
		return a.sarif(host, cfg, host.WorkingTree)
	}
	a.note("the " + orUnknown(a.env.EventName) + " event has no pull request: checking every manifest of the checkout, as annotations")
	files, err := host.WorkingTree(manifestsWanted(host, cfg))
	if err != nil {
		return a.fail(err)
	}
	res := a.checkFiles(host, files, cfg)
	if err := report.WriteWith(a.stdout, "github", res, a.annotationOptions()); err != nil {
		return a.fail(err)
	}
	code := cli.ExitOK
	if res.Failed(cfg) {
		code = cli.ExitFindings
	}
	return a.finish(bot.Summary(bot.Review{Findings: res.Findings, Outside: res.Findings}, cfg.FailOnSeverity()), code)
}

func orUnknown(s string) string {
	if s == "" {
		return "(unknown)"
	}
	return s
}

// finish appends summary, and the run's notes, to the job summary
// (GITHUB_STEP_SUMMARY) and returns code.
// annotationOptions are the github report's options in this step: the
// findings over GitHub's cap on annotations are in the job summary the
// step writes, when it writes one.
func (a *actionRun) annotationOptions() report.Options {
	if a.env.StepSummary == "" {
		return report.Options{}
	}
	return report.Options{UnannotatedIn: "the job summary"}
}

func (a *actionRun) finish(summary string, code int) int {
	path := a.env.StepSummary
	if path == "" {
		return code
	}
	var b strings.Builder
	b.WriteString(summary)
	if !strings.HasSuffix(summary, "\n") {
		b.WriteString("\n")
	}
	if len(a.notes) > 0 {
		b.WriteString("\n")
		for _, n := range a.notes {
			b.WriteString("> :warning: " + n + "\n>\n")
		}
	}
	if err := appendFile(path, b.String()); err != nil {
		fmt.Fprintln(a.stderr, "prodready: writing the job summary:", err)
		if code == cli.ExitOK {
			return cli.ExitUsage
		}
	}
	return code
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(s)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// manifestsWanted says which files of the checkout the Action checks when it
// checks them all (SARIF, or an event without a pull request): those the
// config wants, under the action's paths, the config itself excepted.
func manifestsWanted(host *ghaction.Host, cfg *checks.Config) func(string) bool {
	return func(p string) bool { return p != checks.ConfigFileName && cfg.Wants(p) && host.Under(p) }
}

// checkFiles scans files with cfg as the check command does (scan.Run),
// rendering the charts and overlays of the checkout in child processes,
// in the lean mode (packed trees, the same findings in about half the
// memory), for a whole checkout can be large. It returns every finding.
func (a *actionRun) checkFiles(host *ghaction.Host, files []bot.File, cfg *checks.Config) *checks.Result {
	inputs := make([]checks.Input, 0, len(files))
	for _, f := range files {
		if f.Skipped != "" { // a link: named as not checked, as check names one
			inputs = append(inputs, checks.Input{Path: f.Path, Parsed: &manifest.File{Path: f.Path, Skipped: f.Skipped}})
			continue
		}
		inputs = append(inputs, checks.Input{Path: f.Path, Data: f.Data})
	}
	var folders []rendered.Folder
	if rendered.HasRoots(inputs) {
		root := host.Dir
		if root == "" {
			root = "."
		}
		tree, err := rendered.ReadDir(root)
		folders = []rendered.Folder{{Dir: ".", Files: tree, Err: err}}
	}
	var found []checks.Finding
	out := scan.Run(context.Background(), inputs, folders, cfg, scan.Options{Render: a.opts.renderer, Check: checks.Options{Memory: checks.Lean}}, func(fs []checks.Finding) {
		found = append(found, fs...)
	})
	res := out.Result
	res.Findings = found
	for _, sk := range out.NotRendered {
		a.note(fmt.Sprintf("not checked: %s: %s", sk.File, sk.Reason))
	}
	return res
}
