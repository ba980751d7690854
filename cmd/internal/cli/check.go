package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/rendered"
	"github.com/prodready/prodready/checks/scan"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/report"
	"github.com/prodready/prodready/internal/plural"
)

// defaultMemProfileRate is the runtime's own sampling rate for heap
// profiles (runtime.MemProfileRate): one sample per 512 KiB allocated.
const defaultMemProfileRate = 512 << 10

// checkLong is check's help, above the flags; checkExamples below them.
const (
	checkLong = `Checks the Kubernetes YAML of files and folders (default .), or of the
standard input (-), and prints its findings. The config is --config, else the
nearest .prodready.yaml from the current folder up to the repository root;
the flags below that change it do so for this run only.

A file inside a Helm chart or a kustomize folder, named alone (as pre-commit
names the files it hands to a hook), is checked as part of its chart or
overlay: the whole chart is rendered, and only the findings of the files
named are shown.

Exit code: 1 when a finding is at or above --fail-on, 2 on a usage error or
when nothing was checked (see --allow-empty), else 0.`
	checkExamples = `  prodready check                                  # the current folder
  prodready check deploy/ -o compact               # one line per finding, no fix
  prodready check -o wide charts/web               # every fix's edits, and full messages
  prodready check --kubernetes-version 1.29 --min-severity warning charts/
  prodready check --exclude 'legacy/**' --disable-rule pdb-missing .
  prodready check --enable-rule image-not-pinned --fail-on warning deploy/
  helm template web charts/web | prodready check --stdin-filename charts/web/rendered.yaml -
  prodready check -o sarif --output-file prodready.sarif .
  prodready check -o junit --output-file prodready-junit.xml .`
)

// outputFlags are check's and review's flags that choose the report:
// -o/--output names the format (as kubectl, kube-score, conftest and
// checkov do), --output-file the file.
type outputFlags struct {
	output, format, file string
}

// addOutputFlags defines the report flags on fs, with format as the
// default format.
func addOutputFlags(cmd *cobra.Command, o *outputFlags) {
	fs := cmd.Flags()
	fs.StringVarP(&o.output, "output", "o", "text", "output format: "+strings.Join(report.Formats, ", ")+" (text: for people, one line a finding; wide: every fix's edits; compact: file:line:col: severity: message [rule])")
	fs.StringVar(&o.format, "format", "", "the same as --output (kept for the scripts that use it)")
	hideAlias(cmd, "format", "-o/--output")
	fs.StringVar(&o.file, "output-file", "", "write the report to this file instead of standard output")
	cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(report.Formats, cobra.ShellCompDirectiveNoFileComp))
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(report.Formats, cobra.ShellCompDirectiveNoFileComp))
}

// resolve is the format and file the flags ask for. Before -o named the
// format, `--format sarif -o prodready.sarif` wrote a file: that spelling
// still does, with a note on stderr; -o with a name that is no format and
// no --format is refused, saying to use --output-file.
func (o *outputFlags) resolve(fs *pflag.FlagSet, stderr io.Writer) (format, file string, err error) {
	format, file = o.output, o.file
	outSet, formatSet := fs.Changed("output"), fs.Changed("format")
	known := func(f string) bool { return slices.Contains(report.Formats, f) }
	switch {
	case formatSet && outSet && !known(o.output):
		if o.file != "" {
			return "", "", UsageErrorf("-o %s and --output-file %s: -o is the output format (%s)", o.output, o.file, strings.Join(report.Formats, ", "))
		}
		fmt.Fprintf(stderr, "prodready: note: -o now names the format, as in kubectl; writing %s as --output-file %s would (use -o %s --output-file %s)\n", o.output, o.output, o.format, o.output)
		format, file = o.format, o.output
	case formatSet && outSet && o.format != o.output:
		return "", "", UsageErrorf("--format %s and --output %s ask for two formats", o.format, o.output)
	case formatSet:
		format = o.format
	}
	if !known(format) {
		flag := "-o"
		if formatSet && !outSet {
			flag = "--format"
		}
		if format == "" || strings.ContainsAny(format, "./\\") {
			return "", "", UsageErrorf("%s %s: %s is the output format (%s), as in kubectl; write the report to a file with --output-file %s", flag, format, flag, strings.Join(report.Formats, ", "), format)
		}
		hint := ""
		if s := checks.Closest(format, report.Formats); s != "" {
			hint = fmt.Sprintf(" (did you mean %s?)", s)
		}
		return "", "", UsageErrorf("%s %s: unknown format%s; want %s", flag, format, hint, strings.Join(report.Formats, ", "))
	}
	return format, file, nil
}

// checkFlags are check's own flags.
type checkFlags struct {
	config, failOn         string
	chartValues            string
	out                    outputFlags
	cpuProfile, memProfile string
	allowEmpty, verbose    bool
	over                   *overrides
	iso                    *isolation
}

func (p Program) checkCommand(std IO) *cobra.Command {
	f := &checkFlags{}
	cmd := &cobra.Command{
		Use:     "check [flags] [paths… | -]",
		Short:   "Check files and folders (default .)",
		Long:    checkLong,
		Example: checkExamples,
		RunE: func(cmd *cobra.Command, paths []string) error {
			return Exit(p.runCheck(cmd, f, paths, std))
		},
	}
	fs := cmd.Flags()
	addConfigFlag(cmd, &f.config)
	addOutputFlags(cmd, &f.out)
	addFailOnFlag(cmd, &f.failOn)
	fs.BoolVar(&f.allowEmpty, "allow-empty", false, "exit 0, not 2, when the input holds no Kubernetes object and nothing was found (an empty folder, only other YAML)")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "text: name each file not checked, not only how many and why")
	fs.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	fs.StringVar(&f.memProfile, "memprofile", "", "write a heap profile, taken when the rules have run, to this file (go tool pprof)")
	fs.StringVar(&f.chartValues, "chart-values", "", "which values sets a chart is rendered with: all (its values.yaml, then each ci/*-values.yaml, values-*.yaml and config charts: set) or default (its values.yaml only); overrides the config's chartValues (default all)")
	cmd.RegisterFlagCompletionFunc("chart-values", cobra.FixedCompletions([]string{checks.ChartValuesAll, checks.ChartValuesDefault}, cobra.ShellCompDirectiveNoFileComp))
	f.over = addOverrides(cmd)
	f.iso = addIsolation(cmd)
	return cmd
}

// addConfigFlag defines --config/-c.
func addConfigFlag(cmd *cobra.Command, config *string) {
	cmd.Flags().StringVarP(config, "config", "c", "", "config file (default: the nearest "+checks.ConfigFileName+" from the current folder up to the repository root)")
	cmd.MarkFlagFilename("config", "yaml", "yml")
}

// addFailOnFlag defines --fail-on.
func addFailOnFlag(cmd *cobra.Command, failOn *string) {
	cmd.Flags().StringVar(failOn, "fail-on", "", "lowest severity that makes the exit code 1: info, warning, error or none (default: the config's failOn, else error)")
	cmd.RegisterFlagCompletionFunc("fail-on", cobra.FixedCompletions([]string{"info", "warning", "error", "none"}, cobra.ShellCompDirectiveNoFileComp))
}

// runCheck is the check command; the program's version goes into the
// reports that name their tool's version (SARIF).
func (p Program) runCheck(cmd *cobra.Command, f *checkFlags, paths []string, std IO) int {
	stdout, stderr := std.Out, std.Err
	format, outFile, err := f.out.resolve(cmd.Flags(), stderr)
	if err != nil {
		fmt.Fprintf(stderr, "prodready check: %v\n", err)
		return ExitUsage
	}
	// Heap profiling samples allocations by default in every Go program
	// that links runtime/pprof: about 1.4 MiB of stack buckets on a corpus
	// run that no one reads. Only --memprofile needs it.
	runtime.MemProfileRate = 0
	if f.memProfile != "" {
		runtime.MemProfileRate = defaultMemProfileRate
	}
	if f.cpuProfile != "" {
		stop, err := startCPUProfile(f.cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, "prodready:", err)
			return ExitUsage
		}
		defer stop()
	}
	render, err := p.renderer(cmd, f.iso)
	if err != nil {
		fmt.Fprintln(stderr, "prodready:", err)
		return ExitUsage
	}
	rc, err := loadConfigWith(f.config, f.over)
	if err != nil {
		fmt.Fprintln(stderr, "prodready:", err)
		return ExitUsage
	}
	cfg := rc.Config
	if f.failOn != "" {
		sev, err := checks.ParseSeverity(f.failOn)
		if err != nil {
			fmt.Fprintln(stderr, "prodready: --fail-on:", err)
			return ExitUsage
		}
		cfg.SetFailOn(sev)
	}
	if f.chartValues != "" {
		if err := cfg.SetChartValues(f.chartValues); err != nil {
			fmt.Fprintln(stderr, "prodready: --chart-values:", err)
			return ExitUsage
		}
	}
	sel, err := selectInputs(cfg, paths, std.In, true)
	if err != nil {
		fmt.Fprintln(stderr, "prodready:", err)
		return ExitUsage
	}
	inputs := sel.inputs
	warnGlobs(stderr, cfg)
	f.over.nameStdin(inputs)
	out := stdout
	if outFile != "" {
		file, err := os.Create(outFile)
		if err != nil {
			fmt.Fprintln(stderr, "prodready:", err)
			return ExitUsage
		}
		defer file.Close()
		out = file
	}
	opts := report.Options{Version: p.Version, Config: rc.Describe(), Color: colorOn(cmd, out), Verbose: f.verbose}
	if format == "github" {
		// GitHub Actions shows the job summary's Markdown on the run's
		// page; the runner names the file, appended to by each step.
		if p := os.Getenv("GITHUB_STEP_SUMMARY"); p != "" {
			file, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				fmt.Fprintln(stderr, "prodready: GITHUB_STEP_SUMMARY:", err)
				return ExitUsage
			}
			defer file.Close()
			opts.StepSummary = file
		}
	}
	prog := startProgress(stderr)
	// The report is written file by file as the rules finish with each,
	// so the findings of a large run are never all held (report.Stream).
	stream, err := report.NewStream(prog.writer(out), format, opts)
	if err != nil {
		prog.stop()
		fmt.Fprintln(stderr, "prodready:", err)
		return ExitUsage
	}
	failed := false
	found := 0
	var writeErr error
	emit := func(fs []checks.Finding) {
		fs = sel.shown(f.over.shown(fs))
		found += len(fs)
		prog.add(len(fs))
		failed = failed || cfg.Fails(fs)
		if writeErr == nil {
			writeErr = stream.Add(fs)
		}
	}
	// The collector is paced to each step of the run (GOGC in the
	// environment overrides it): this process runs one check.
	// A run that renders each chart once reads a file of its folders when
	// a render reads it; one that renders every values set reads them
	// whole (rendered.ListFolders says why).
	scanned := scan.Run(context.Background(), inputs, readFolders(inputs, sel.folders, cfg.ChartValuesOnlyDefault()), cfg, scan.Options{
		Render: render,
		Check:  checks.Options{Memory: checks.Lean, PaceGC: true, ListObjects: report.ListsObjects(format)},
	}, emit)
	prog.stop()
	res := sel.result(scanned.Result)
	if f.memProfile != "" {
		if err := writeHeapProfile(f.memProfile); err != nil {
			fmt.Fprintln(stderr, "prodready:", err)
			return ExitUsage
		}
	}
	if writeErr == nil {
		var rendersSkipped []report.NotChecked
		for _, sk := range scanned.NotRendered {
			if sel.wantsPath(sk.File) {
				rendersSkipped = append(rendersSkipped, report.NotChecked{Path: sk.File, Reason: sk.Reason})
			}
		}
		writeErr = stream.Close(res, rendersSkipped...)
	}
	if writeErr != nil {
		fmt.Fprintln(stderr, "prodready:", writeErr)
		return ExitUsage
	}
	fmt.Fprint(stderr, sel.hiddenNote("check", "shows"))
	if outFile != "" {
		fmt.Fprintf(stderr, "prodready: wrote %s (%s): %s\n", outFile, format, report.SummaryOf(res, stream.Counts()))
	}
	if failed {
		return ExitFindings
	}
	if res.Kubernetes == 0 && res.ValuesFiles == 0 && found == 0 && !f.allowEmpty {
		// A typo'd path, an empty folder or only other YAML must not
		// pass as a clean check.
		n := len(res.Files)
		what := fmt.Sprintf("the %s read %s no Kubernetes object", plural.Count(n, "file", "files"), plural.Form(n, "holds", "hold"))
		if n == 0 {
			what = "no file to check was found (by default *.yaml and *.yml; see include in .prodready.yaml)"
		}
		fmt.Fprintf(stderr, "prodready: nothing was checked: %s; --allow-empty exits 0 on such input\n", what)
		return ExitUsage
	}
	return ExitOK
}

// warnGlobs says on stderr which include and exclude globs matched no
// file or folder of the run: a typo, or a folder that has moved.
func warnGlobs(stderr io.Writer, cfg *checks.Config) {
	for _, g := range cfg.UnmatchedGlobs() {
		fmt.Fprintf(stderr, "prodready: warning: %s matches nothing\n", g)
	}
}

// rulesCommand is `prodready rules [ID…]`.
func rulesCommand(std IO) *cobra.Command {
	var output, file string
	var markdown bool
	cmd := &cobra.Command{
		Use:   "rules [rule-id…]",
		Short: "List every rule, or show the rules named with an example and the fix",
		Long: `Lists every rule, one line each, or shows the rules named: what each finds, why
it matters, an example that it reports and its fix. -o markdown writes the
reference docs/rules.md is; -o json the catalog for tools.`,
		Example: `  prodready rules
  prodready rules replicas-too-few
  prodready rules -o json
  prodready rules -o markdown --output-file docs/rules.md`,
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return ruleIDs(), cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, ids []string) error {
			if markdown {
				if cmd.Flags().Changed("output") && output != "markdown" {
					return UsageErrorf("--markdown and -o %s ask for two formats", output)
				}
				output = "markdown"
			}
			return Exit(runRules(ids, output, file, std))
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json or markdown")
	cmd.Flags().StringVar(&file, "output-file", "", "write to this file (e.g. docs/rules.md) instead of standard output")
	cmd.Flags().BoolVar(&markdown, "markdown", false, "the same as -o markdown")
	hideAlias(cmd, "markdown", "-o markdown")
	cmd.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"text", "json", "markdown"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// ruleIDs are the catalog's rule ids, for completion.
func ruleIDs() []string {
	var ids []string
	for _, r := range catalog.Default().Rules() {
		ids = append(ids, r.ID)
	}
	return ids
}

func runRules(ids []string, output, file string, std IO) int {
	for _, id := range ids {
		if err := catalog.Default().CheckRuleID(id); err != nil {
			fmt.Fprintln(std.Err, "prodready rules:", err)
			return ExitUsage
		}
	}
	var b strings.Builder
	var err error
	switch output {
	case "text":
		if len(ids) == 0 {
			err = report.RulesText(&b)
		} else {
			err = writeRuleDetail(&b, ids)
		}
	case "json":
		err = report.RulesJSON(&b, ids)
	case "markdown":
		if len(ids) > 0 {
			fmt.Fprintln(std.Err, "prodready rules: -o markdown writes the whole reference; name no rule")
			return ExitUsage
		}
		b.WriteString(report.RulesMarkdown())
	default:
		fmt.Fprintf(std.Err, "prodready rules: -o %s: want text, json or markdown\n", output)
		return ExitUsage
	}
	if err != nil {
		fmt.Fprintln(std.Err, "prodready rules:", err)
		return ExitUsage
	}
	if file == "" {
		fmt.Fprint(std.Out, b.String())
		return ExitOK
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		fmt.Fprintln(std.Err, "prodready:", err)
		return ExitUsage
	}
	return ExitOK
}

// listInputs lists the files to check from paths ("." when none is given)
// under cfg: read now, or with lazy when each is parsed (checks.List).
func listInputs(cfg *checks.Config, paths []string, stdin io.Reader, lazy bool) ([]checks.Input, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	load := checks.Load
	if lazy {
		load = checks.List
	}
	return load(paths, cfg, stdin)
}

// startCPUProfile profiles the process into file until stop is called.
func startCPUProfile(file string) (stop func(), err error) {
	f, err := os.Create(file)
	if err != nil {
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// writeHeapProfile writes the heap profile (allocations so far, and what
// is live) to file.
func writeHeapProfile(file string) error {
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("memprofile: %w", err)
	}
	defer f.Close()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		return fmt.Errorf("memprofile: %w", err)
	}
	return nil
}

// readFolders reads from disk (lists, with list: rendered.ListFolders)
// the folders among paths whose inputs hold a chart or a kustomization
// (none when the inputs hold no Chart.yaml or kustomization, so a plain
// run never starts a renderer), with the text of
// the inputs that hold it in place of what is on disk (fix's rounds: the
// text as fixed so far).
func readFolders(inputs []checks.Input, paths []string, list bool) []rendered.Folder {
	if !rendered.HasRoots(inputs) {
		return nil
	}
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var dirs []string
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			dirs = append(dirs, filepath.ToSlash(filepath.Clean(p)))
		}
	}
	read := rendered.ReadFolders
	if list {
		read = rendered.ListFolders
	}
	folders := read(inputs, dirs)
	for i := range folders {
		folders[i] = widen(folders[i], list)
	}
	overlay(folders, inputs)
	return folders
}

// widen reads, in place of folder, the repository it lies in when what
// it holds names a path outside it: a kustomization whose base is
// ../../base (`check overlays/prod`), or a chart whose dependency is a
// file:// path outside it or a chart that neither its charts/ nor the
// folder holds (`check bitnami/redis`, whose common lies beside it). The
// overlay is then built, and the chart's dependencies resolved, as from
// the repository root. Only the charts and kustomizations under folder
// are rendered (Folder.Roots), so the run renders what was named and no
// more. A folder in no repository, or that reaches nothing outside it, is
// returned as it is.
func widen(folder rendered.Folder, list bool) rendered.Folder {
	if folder.Err != nil || !rendered.ReachesOutside(folder.Files) && !rendered.ChartsReachOutside(folder.Files) {
		return folder
	}
	absDir, err := filepath.Abs(filepath.FromSlash(folder.Dir))
	if err != nil {
		return folder
	}
	cwd, err := os.Getwd()
	if err != nil {
		return folder
	}
	root := repositoryRoot(absDir)
	if root == "" {
		if root = overlayReach(folder.Files, absDir, cwd); root == "" {
			return folder
		}
	}
	if root == absDir {
		return folder
	}
	relRoot, err1 := filepath.Rel(cwd, root)
	under, err2 := filepath.Rel(root, absDir)
	if err1 != nil || err2 != nil {
		return folder
	}
	files, read, err := rendered.LoadDir(relRoot, list)
	if err != nil {
		return folder
	}
	return rendered.Folder{Dir: filepath.ToSlash(relRoot), Files: files, Read: read, Roots: []string{filepath.ToSlash(under)}}
}

// overlayReach returns, outside a repository, the nearest folder above
// absDir, and at most the current folder cwd, from which every
// kustomization of files (the folder absDir's) finds what it names
// (`check overlays/prod`, whose base is ../../base, from the folder that
// holds both); "" for none. Only the kustomizations' text is read for it,
// so no folder is walked that the overlay does not need; a chart's
// dependencies are not looked for outside a repository.
func overlayReach(files rendered.Files, absDir, cwd string) string {
	if !rendered.ReachesOutside(files) || !within(filepath.ToSlash(absDir), filepath.ToSlash(cwd)) {
		return ""
	}
	for dir := filepath.Dir(absDir); within(filepath.ToSlash(dir), filepath.ToSlash(cwd)); dir = filepath.Dir(dir) {
		under, err := filepath.Rel(dir, absDir)
		if err != nil {
			return ""
		}
		own := rendered.Files{}
		for p, data := range files {
			if rendered.IsKustomizationName(path.Base(p)) {
				own[path.Join(filepath.ToSlash(under), p)] = data
			}
		}
		if !rendered.ReachesOutside(own) {
			return dir
		}
		if dir == cwd || filepath.Dir(dir) == dir {
			return ""
		}
	}
	return ""
}

// relTo is the slash path of file (relative to the current folder) from
// folder dir; false when it is not under dir.
func relTo(dir, file string) (string, bool) {
	absDir, err1 := filepath.Abs(filepath.FromSlash(dir))
	absFile, err2 := filepath.Abs(file)
	if err1 != nil || err2 != nil {
		return "", false
	}
	rel, err := filepath.Rel(absDir, absFile)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// overlay puts the text of the inputs that hold it in place of the files
// read from disk.
func overlay(folders []rendered.Folder, inputs []checks.Input) {
	for _, folder := range folders {
		for _, in := range inputs {
			if in.Data == nil {
				continue
			}
			rel := path.Clean(filepath.ToSlash(in.Path))
			if folder.Dir != "." {
				var ok bool
				if rel, ok = strings.CutPrefix(rel, folder.Dir+"/"); !ok && strings.HasPrefix(folder.Dir, "..") {
					// The repository around the current folder (widen):
					// the input's path from there.
					rel, ok = relTo(folder.Dir, in.Path)
				}
				if !ok {
					continue
				}
			}
			if _, ok := folder.Files[rel]; ok {
				folder.Files[rel] = in.Data
			}
		}
	}
}
