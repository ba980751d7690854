package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"

	"github.com/prodready/prodready/checks/rendered"
	"github.com/prodready/prodready/checks/scan"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/report"
	"github.com/prodready/prodready/internal/plural"
)

// defaultMemProfileRate is the runtime's own sampling rate for heap
// profiles (runtime.MemProfileRate): one sample per 512 KiB allocated.
const defaultMemProfileRate = 512 << 10

// checkUsage is check's help, above the flags; checkExamples below them.
const (
	checkUsage = `Usage: prodready check [flags] [paths… | -]

Checks the Kubernetes YAML of files and folders (default .), or of the
standard input (-), and prints its findings. The config is --config, else the
nearest .prodready.yaml from the current folder up to the repository root;
the flags below that change it do so for this run only.

Exit code: 1 when a finding is at or above --fail-on, 2 on a usage error or
when nothing was checked (see --allow-empty), else 0.

Flags:
`
	checkExamples = `
Examples:
  prodready check                                  # the current folder
  prodready check deploy/ --format compact         # one line per finding
  prodready check --kubernetes-version 1.29 --min-severity warning charts/
  prodready check --exclude 'legacy/**' --disable-rule pdb-missing .
  prodready check --enable-rule image-not-pinned --fail-on warning deploy/
  helm template web charts/web | prodready check --stdin-filename charts/web/rendered.yaml -
  prodready check --format sarif -o prodready.sarif .
  prodready check --format junit -o prodready-junit.xml .
`
)

// runCheck is the check command; version goes into the reports that name
// their tool's version (SARIF).
func runCheck(version string, render rendered.Renderer, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	configPath := fs.String("config", "", "config file (default: the nearest "+checks.ConfigFileName+" from the current folder up to the repository root)")
	format := fs.String("format", "text", "output format: "+strings.Join(report.Formats, ", ")+" (compact: text with one line per finding and no fix)")
	outputFormat := fs.String("output", "", "the same as --format (kubeconform's and kube-score's name for it); -o names the report's file")
	failOn := fs.String("fail-on", "", "lowest severity that makes the exit code 1: info, warning, error or none (default: the config's failOn, else error)")
	output := fs.String("o", "", "write the report to this file instead of standard output")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the run to this file (go tool pprof)")
	memProfile := fs.String("memprofile", "", "write a heap profile, taken when the rules have run, to this file (go tool pprof)")
	allowEmpty := fs.Bool("allow-empty", false, "exit 0, not 2, when the input holds no Kubernetes object and nothing was found (an empty folder, only other YAML)")
	over := addOverrides(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, checkUsage)
		fs.PrintDefaults()
		fmt.Fprint(stderr, checkExamples)
	}
	paths, err := ParseFlags(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if *outputFormat != "" {
		if !slices.Contains(report.Formats, *outputFormat) {
			fmt.Fprintf(stderr, "prodready: --output %s: --output chooses the format (%s), like --format; -o FILE writes the report to a file\n", *outputFormat, strings.Join(report.Formats, ", "))
			return ExitUsage
		}
		if formatSet(fs) && *format != *outputFormat {
			fmt.Fprintf(stderr, "prodready: --format %s and --output %s ask for two formats\n", *format, *outputFormat)
			return ExitUsage
		}
		*format = *outputFormat
	}
	// Heap profiling samples allocations by default in every Go program
	// that links runtime/pprof: about 1.4 MiB of stack buckets on a corpus
	// run that no one reads. Only --memprofile needs it.
	runtime.MemProfileRate = 0
	if *memProfile != "" {
		runtime.MemProfileRate = defaultMemProfileRate
	}
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, "prodready:", err)
			return ExitUsage
		}
		defer stop()
	}
	rc, err := loadConfigWith(*configPath, over)
	if err != nil {
		fmt.Fprintln(stderr, "prodready:", err)
		return ExitUsage
	}
	cfg := rc.Config
	if *failOn != "" {
		sev, err := checks.ParseSeverity(*failOn)
		if err != nil {
			fmt.Fprintln(stderr, "prodready: --fail-on:", err)
			return ExitUsage
		}
		cfg.SetFailOn(sev)
	}
	inputs, err := listInputs(cfg, paths, stdin, true)
	if err != nil {
		fmt.Fprintln(stderr, "prodready:", err)
		return ExitUsage
	}
	over.nameStdin(inputs)
	out := stdout
	if *output != "" {
		f, err := os.Create(*output)
		if err != nil {
			fmt.Fprintln(stderr, "prodready:", err)
			return ExitUsage
		}
		defer f.Close()
		out = f
	}
	opts := report.Options{Version: version, Config: rc.Describe()}
	if *format == "github" {
		// GitHub Actions shows the job summary's Markdown on the run's
		// page; the runner names the file, appended to by each step.
		if p := os.Getenv("GITHUB_STEP_SUMMARY"); p != "" {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				fmt.Fprintln(stderr, "prodready: GITHUB_STEP_SUMMARY:", err)
				return ExitUsage
			}
			defer f.Close()
			opts.StepSummary = f
		}
	}
	// The report is written file by file as the rules finish with each,
	// so the findings of a large run are never all held (report.Stream).
	stream, err := report.NewStream(out, *format, opts)
	if err != nil {
		fmt.Fprintln(stderr, "prodready:", err)
		return ExitUsage
	}
	failed := false
	found := 0
	var writeErr error
	emit := func(fs []checks.Finding) {
		fs = over.shown(fs)
		found += len(fs)
		failed = failed || cfg.Fails(fs)
		if writeErr == nil {
			writeErr = stream.Add(fs)
		}
	}
	// The collector is paced to each step of the run (GOGC in the
	// environment overrides it): this process runs one check.
	scanned := scan.Run(context.Background(), inputs, readFolders(inputs, paths), cfg, scan.Options{
		Render: render,
		Check:  checks.Options{Memory: checks.Lean, PaceGC: true, ListObjects: report.ListsObjects(*format)},
	}, emit)
	res := scanned.Result
	if *memProfile != "" {
		if err := writeHeapProfile(*memProfile); err != nil {
			fmt.Fprintln(stderr, "prodready:", err)
			return ExitUsage
		}
	}
	if writeErr == nil {
		var rendersSkipped []report.NotChecked
		for _, sk := range scanned.NotRendered {
			rendersSkipped = append(rendersSkipped, report.NotChecked{Path: sk.File, Reason: sk.Reason})
		}
		writeErr = stream.Close(res, rendersSkipped...)
	}
	if writeErr != nil {
		fmt.Fprintln(stderr, "prodready:", writeErr)
		return ExitUsage
	}
	if failed {
		return ExitFindings
	}
	if res.Kubernetes == 0 && res.ValuesFiles == 0 && found == 0 && !*allowEmpty {
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

// formatSet reports whether --format was given on the command line.
func formatSet(fs *flag.FlagSet) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "format" })
	return set
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

func runRules(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("rules", flag.ContinueOnError)
	fs.SetOutput(stderr)
	markdown := fs.Bool("markdown", false, "write the Markdown rule reference instead of the list")
	output := fs.String("o", "", "with --markdown: write to this file (e.g. docs/rules.md) instead of standard output")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK
		}
		return ExitUsage
	}
	if !*markdown {
		if err := report.RulesText(stdout); err != nil {
			return ExitUsage
		}
		return ExitOK
	}
	md := report.RulesMarkdown()
	if *output == "" {
		fmt.Fprint(stdout, md)
		return ExitOK
	}
	if err := os.WriteFile(*output, []byte(md), 0o644); err != nil {
		fmt.Fprintln(stderr, "prodready:", err)
		return ExitUsage
	}
	return ExitOK
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

// readFolders reads from disk the folders among paths whose inputs hold a
// chart or a kustomization (none when the inputs hold no Chart.yaml or
// kustomization, so a plain run never starts a renderer), with the text of
// the inputs that hold it in place of what is on disk (fix's rounds: the
// text as fixed so far).
func readFolders(inputs []checks.Input, paths []string) []rendered.Folder {
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
	folders := rendered.ReadFolders(inputs, dirs)
	for i := range folders {
		folders[i] = widen(folders[i])
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
func widen(folder rendered.Folder) rendered.Folder {
	if folder.Err != nil || !rendered.ReachesOutside(folder.Files) && !rendered.ChartsReachOutside(folder.Files) {
		return folder
	}
	absDir, err := filepath.Abs(filepath.FromSlash(folder.Dir))
	if err != nil {
		return folder
	}
	root := repositoryRoot(absDir)
	if root == "" || root == absDir {
		return folder
	}
	cwd, err := os.Getwd()
	if err != nil {
		return folder
	}
	relRoot, err1 := filepath.Rel(cwd, root)
	under, err2 := filepath.Rel(root, absDir)
	if err1 != nil || err2 != nil {
		return folder
	}
	files, err := rendered.ReadDir(relRoot)
	if err != nil {
		return folder
	}
	return rendered.Folder{Dir: filepath.ToSlash(relRoot), Files: files, Roots: []string{filepath.ToSlash(under)}}
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
