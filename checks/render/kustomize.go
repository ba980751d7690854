package render

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks/rendered"
	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// overlay is what the pre-build walk learns about a kustomization tree.
type overlay struct {
	files  rendered.Files
	read   rendered.Reader   // reads the files listed with no contents
	got    map[string][]byte // what read has read, for this build
	inputs map[string]bool
	dirs   map[string]bool // kustomization folders of the tree
	// kusts are the tree's kustomizations (components too) as the walk
	// read them, by file.
	kusts    map[string]*types.Kustomization
	patches  []patchFile
	problems []rendered.Problem
}

// patchFile is a patch of the tree with its target: a file, or the text
// of a kustomization's patches: entry (inline).
type patchFile struct {
	file       string
	json6902   bool
	kind, name string // target; empty name matches any
	inline     *inlinePatch
}

// inlinePatch is a patch written in a kustomization's patches: entry as
// a literal block (patch: |-), and where its text is in that file.
type inlinePatch struct {
	text   string
	line   int // the file's line of the text's first line
	indent int // the columns the block indents its lines by
}

// text returns p's patch text, and where a position of it (1-based line
// and column) is in p.file.
func (p patchFile) text(ov *overlay) ([]byte, func(line, col int) (int, int)) {
	if p.inline == nil {
		return ov.text(p.file), func(line, col int) (int, int) { return line, col }
	}
	in := p.inline
	return []byte(in.text), func(line, col int) (int, int) { return in.line + line - 1, in.indent + col }
}

// addInlinePatches records the patches kustomization kfile (k, parsed)
// writes in its patches: and patchesJson6902: entries as literal blocks,
// with their targets, so that the keys they set map to their lines.
func (ov *overlay) addInlinePatches(kfile string, k *types.Kustomization) {
	data := ov.text(kfile)
	doc, err := parseYAML(data)
	if err != nil || len(doc.Content) == 0 {
		return
	}
	lines := strings.Split(string(data), "\n")
	for _, field := range []struct {
		name    string
		patches []types.Patch
	}{{"patches", k.Patches}, {"patchesJson6902", k.PatchesJson6902}} {
		seq := valueAt(doc.Content[0], field.name)
		for i, p := range field.patches {
			if p.Patch == "" || seq == nil || seq.Kind != yaml.SequenceNode || i >= len(seq.Content) {
				continue
			}
			at, ok := inlineAt(valueAt(seq.Content[i], "patch"), lines)
			if !ok || at.text != p.Patch {
				continue
			}
			isJSON := isJSONPatch([]byte(p.Patch))
			if p.Target != nil {
				ov.patches = append(ov.patches, patchFile{file: kfile, json6902: isJSON, kind: p.Target.Kind, name: p.Target.Name, inline: at})
			} else if !isJSON {
				for _, pf := range smpTargets(kfile, []byte(p.Patch)) {
					pf.inline = at
					ov.patches = append(ov.patches, pf)
				}
			}
		}
	}
}

// inlineAt returns where the literal block n of a file (lines: its text's
// lines) has its text, a patch: value: the line after its indicator,
// indented as its first line that is not blank. ok is false for any other
// scalar (a folded or one-line patch keeps no line of its text as written).
func inlineAt(n *yaml.Node, lines []string) (*inlinePatch, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Style&yaml.LiteralStyle == 0 {
		return nil, false
	}
	for i := n.Line; i < len(lines); i++ { // lines[n.Line] is the block's first line
		if t := strings.TrimLeft(lines[i], " "); t != "" {
			return &inlinePatch{text: n.Value, line: n.Line + 1, indent: len(lines[i]) - len(t)}, true
		}
	}
	return nil, false
}

// data returns the contents of file p of the overlay's files, read (once a
// build) when the set lists it with none; ok is false when the set does
// not list it.
func (ov *overlay) data(p string) (data []byte, ok bool, err error) {
	if data, ok := ov.got[p]; ok {
		return data, true, nil
	}
	data, ok, err = ov.files.Read(p, ov.read)
	if ok && ov.files[p] == nil && ov.read != nil {
		if ov.got == nil {
			ov.got = map[string][]byte{}
		}
		ov.got[p] = data
	}
	return data, ok, err
}

// text returns the contents of file p, nil when there are none (a file
// that cannot be read: the build says why where it reads it).
func (ov *overlay) text(p string) []byte {
	data, _, _ := ov.data(p)
	return data
}

// RenderKustomization builds the kustomization file kfile of files with
// kustomize's builtin generators and transformers on an in-memory file system.
// Plugins, helmCharts inflation and remote resources are refused with a
// problem on the kustomization that asks for them.
func RenderKustomization(ctx context.Context, files rendered.Files, kfile string, opts rendered.Options) *rendered.Render {
	opts = opts.WithDefaults()
	r := &rendered.Render{Kind: Kustomize, Root: kfile}
	ov := &overlay{files: files, read: opts.Read, inputs: map[string]bool{}, dirs: map[string]bool{}, kusts: map[string]*types.Kustomization{}}
	ov.walk(kfile, 0)
	for in := range ov.inputs {
		r.Inputs = append(r.Inputs, in)
	}
	r.Problems = append(r.Problems, ov.problems...)
	if len(ov.problems) > 0 {
		skipAll(r, "overlay refused")
		return finish(r)
	}

	fs, written, added, err := ov.memFS(kfile, !opts.StreamOnly)
	if err != nil {
		r.Problems = append(r.Problems, rendered.Problem{File: kfile, Message: err.Error()})
		return finish(r)
	}
	build := func() *rendered.Render {
		ctx, cancel := withBudget(ctx, opts.Timeout)
		defer cancel()
		m, err := runKrusty(ctx, fs, path.Dir(kfile))
		if err != nil {
			file, line, col := ov.buildErrorAt(kfile, err)
			r.Problems = append(r.Problems, rendered.Problem{File: file, Line: line, Column: col, Message: "kustomize build: " + buildMessage(err)})
			skipAll(r, "build failed")
			return finish(r)
		}
		if !opts.StreamOnly {
			r.Unmatched, r.Unjudged = ov.unmatched(kfile, m) // before documents takes the origins off
		}
		ov.documents(r, m, path.Dir(kfile), added, opts)
		return finish(r)
	}
	if opts.Builds == nil || opts.StreamOnly {
		return build()
	}
	return opts.Builds.Build(ov.buildKey(kfile, written, opts), build)
}

// buildKey identifies a build of kfile by what it reads: the contents of
// the files the walk found it reads (its kustomizations, resources,
// patches, generator inputs: kustomize reads no file the walk does not
// name, which the walk's refusals rely on too), the names of the other
// files of the in-memory file system (a second kustomization file in a
// folder fails the build), and the options.
func (ov *overlay) buildKey(kfile string, written []string, opts rendered.Options) [sha256.Size]byte {
	h := sha256.New()
	o := opts
	o.Only, o.Roots, o.Builds = nil, nil, nil
	j, _ := json.Marshal(o)
	fmt.Fprintf(h, "%s\x00%s\x00", kfile, j)
	for _, p := range written {
		if ov.inputs[p] {
			data := ov.text(p)
			fmt.Fprintf(h, "%s\x00%d\x00", p, len(data))
			h.Write(data)
		} else {
			fmt.Fprintf(h, "%s\x00-\x00", p)
		}
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}

// runKrusty runs a build with panics turned into errors, abandoning it when
// ctx ends first.
func runKrusty(ctx context.Context, fs filesys.FileSystem, dir string) (resmap.ResMap, error) {
	type result struct {
		m   resmap.ResMap
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				done <- result{err: fmt.Errorf("kustomize panicked: %v", p)}
			}
		}()
		o := krusty.MakeDefaultOptions()
		o.PluginConfig = types.DisabledPluginConfig()
		o.LoadRestrictions = types.LoadRestrictionsRootOnly
		if dir == "." {
			dir = "/"
		} else {
			dir = "/" + dir
		}
		m, err := krusty.MakeKustomizer(o).Run(fs, dir)
		done <- result{m, err}
	}()
	select {
	case res := <-done:
		return res.m, res.err
	case <-ctx.Done():
		return nil, stopCause(ctx)
	}
}

const maxOverlayDepth = 20

// walk reads a kustomization and everything it references, refusing what
// this package does not run. Every entry of a path-taking field (see
// kustomizationPaths) must be a file or folder of the repository: a URL or
// git reference is refused before krusty runs, so that its loader, which
// gets URLs with an HTTP client of its own and clones with the git command,
// never reaches past the in-memory file system.
func (ov *overlay) walk(kfile string, depth int) {
	dir := cleanDir(path.Dir(kfile))
	if ov.dirs[dir] || depth > maxOverlayDepth {
		return
	}
	ov.dirs[dir] = true
	ov.inputs[kfile] = true
	var k types.Kustomization
	if err := k.Unmarshal(ov.text(kfile)); err != nil {
		ov.refuse(kfile, unknownKey(err), fmt.Sprintf("reading kustomization: %v", err))
		return
	}
	ov.kusts[kfile] = &k
	if len(k.HelmCharts) > 0 || k.HelmGlobals != nil || len(k.HelmChartInflationGenerator) > 0 {
		ov.refuse(kfile, "helm", "helmCharts inflation is not run: it downloads charts and runs helm; render the chart as a chart instead")
	}
	for _, ref := range kustomizationPaths(&k) {
		ov.checkRef(kfile, dir, ref, depth)
	}
	ov.addInlinePatches(kfile, &k)
}

// checkRef checks one entry of a path-taking field of kfile, a
// kustomization in folder dir: it refuses a URL, a git reference, a path
// outside the repository or missing from it, walks a kustomization it
// leads to, and records the files it reads.
func (ov *overlay) checkRef(kfile, dir string, ref pathRef, depth int) {
	if remoteRef(ref.value) {
		what := "is a URL"
		if ref.kind == refResource {
			what = "is a remote resource"
		}
		ov.refuseRef(kfile, ref, fmt.Sprintf("%s: %q %s: renders are offline, nothing is fetched", ref.field, ref.value, what))
		return
	}
	inline := strings.Contains(ref.value, "\n") || len(decodeAll([]byte(ref.value))) > 0
	switch {
	case ref.kind == refPlugin && inline:
		ov.checkPlugin(kfile, dir, ref.field, ref.value, []byte(ref.value), depth)
		return
	case ref.kind == refInlineOrFile && inline:
		return
	}
	if strings.HasPrefix(ref.value, "/") {
		ov.refuseRef(kfile, ref, fmt.Sprintf("%s: %q is an absolute path: only paths relative to the kustomization are read", ref.field, ref.value))
		return
	}
	target, ok := join(dir, ref.value)
	if !ok {
		ov.refuseRef(kfile, ref, fmt.Sprintf("%s: %q leads outside the files read (the repository; outside one, the current folder)", ref.field, ref.value))
		return
	}
	if ref.kind == refResource || ref.kind == refPlugin {
		if kf := ov.kustomizationIn(target); kf != "" {
			ov.walk(kf, depth+1)
			return
		}
	}
	data, isFile, err := ov.data(target)
	if err != nil {
		ov.refuseRef(kfile, ref, fmt.Sprintf("%s: %q: %v", ref.field, ref.value, err))
		return
	}
	if !isFile {
		what := "is not in the repository"
		if target == "" || len(ov.files.Under(target)) > 0 {
			what = "is a folder, not a file"
			if ref.kind == refResource || ref.kind == refPlugin {
				what = "is a folder without a kustomization"
			}
		}
		ov.refuseRef(kfile, ref, fmt.Sprintf("%s: %q %s", ref.field, ref.value, what))
		return
	}
	ov.inputs[target] = true
	switch {
	case ref.kind == refPlugin:
		ov.checkPlugin(kfile, dir, ref.field, ref.value, data, depth)
	case ref.kind == refInlineOrFile:
		ov.patches = append(ov.patches, smpTargets(target, data)...)
	case strings.HasPrefix(ref.field, "patches"):
		ov.addPatch(target, data, ref)
	}
}

var (
	// goPointers are the addresses kustomize prints of a generator
	// ("merging from generator &{0x2339c3eb2750 0x2339c42a9100}: …"),
	// different at every run.
	goPointers = regexp.MustCompile(`\s*&\{0x[0-9a-f]+(?: 0x[0-9a-f]+)*\}`)
	// resIDs are the resource ids kustomize prints as Go values.
	resIDs = regexp.MustCompile(`resid\.ResId\{Gvk:resid\.Gvk\{Group:"([^"]*)", Version:"([^"]*)", Kind:"([^"]*)", isClusterScoped:(?:true|false)\}, Name:"([^"]*)", Namespace:"([^"]*)"\}`)
)

// buildMessage is a kustomize build's error as a person reads it, the
// same at every run: without the Go addresses it prints, and with a
// resource's id as its kind and name.
func buildMessage(err error) string {
	msg := goPointers.ReplaceAllString(err.Error(), "")
	return resIDs.ReplaceAllStringFunc(msg, func(id string) string {
		m := resIDs.FindStringSubmatch(id)
		gv := m[2]
		if m[1] != "" {
			gv = m[1] + "/" + m[2]
		}
		out := fmt.Sprintf("%s %s %q", gv, m[3], m[4])
		if m[5] != "" {
			out += " in namespace " + strconv.Quote(m[5])
		}
		return out
	})
}

// missingPath is kustomize's error for an operation of a JSON 6902 patch
// whose path its target lacks ("replace operation does not apply: doc is
// missing path: /spec/x: missing value", "error in remove for path:
// '/spec/x': Unable to remove nonexistent key").
var missingPath = regexp.MustCompile(`(?:missing path: |for path: ')(/[^\s:']*)`)

// buildErrorAt returns where the error of a build of kfile is reported:
// for an operation whose path the target lacks, the line of the tree's
// JSON 6902 patch (a file, or a kustomization's inline patch) that names
// the path; else kfile.
func (ov *overlay) buildErrorAt(kfile string, err error) (file string, line, col int) {
	m := missingPath.FindStringSubmatch(err.Error())
	if m == nil {
		return kfile, 0, 0
	}
	for _, p := range ov.patches {
		if !p.json6902 {
			continue
		}
		for i, l := range strings.Split(string(ov.text(p.file)), "\n") {
			c := strings.Index(l, m[1])
			if c < 0 {
				continue
			}
			if rest := l[c+len(m[1]):]; rest == "" || strings.ContainsAny(rest[:1], " \t\"'\r,}") {
				return p.file, i + 1, c + 1
			}
		}
	}
	return kfile, 0, 0
}

// unknownField is the strict decode's error for a key a kustomization may
// not hold (a typo, a field of another kustomize version).
var unknownField = regexp.MustCompile(`unknown field "(?:[^"]*\.)?([^".]+)"`)

// unknownKey returns the line text that starts the key err says is unknown
// ("fooBar:"), for refuse to find; "" for another error.
func unknownKey(err error) string {
	if m := unknownField.FindStringSubmatch(err.Error()); m != nil {
		return m[1] + ":"
	}
	return ""
}

// refuseRef refuses an entry at the line of kfile that holds it or, when
// kfile does not (a path in a file of plugin configurations), at the line
// of the entry it was found through.
func (ov *overlay) refuseRef(kfile string, ref pathRef, msg string) {
	ov.refuse(kfile, ref.value, msg)
	if p := &ov.problems[len(ov.problems)-1]; p.Line == 0 && ref.at != "" {
		ov.problems = ov.problems[:len(ov.problems)-1]
		ov.refuse(kfile, ref.at, msg)
	}
}

// addPatch records a patches or patchesJson6902 file with its target.
func (ov *overlay) addPatch(target string, data []byte, ref pathRef) {
	p := ref.patch
	isJSON := isJSONPatch(data)
	if p != nil && p.Target != nil {
		ov.patches = append(ov.patches, patchFile{file: target, json6902: isJSON, kind: p.Target.Kind, name: p.Target.Name})
	} else if !isJSON {
		ov.patches = append(ov.patches, smpTargets(target, data)...)
	}
}

// checkPlugin refuses generator, transformer and validator entries that are
// not builtin: exec and containerized plugins and KRM functions, and helm
// inflation. The path fields of a builtin's configuration are checked like
// the kustomization's own: kustomize reads them relative to kfile's folder.
func (ov *overlay) checkPlugin(kfile, dir, field, entry string, data []byte, depth int) {
	docs, err := decodeStrict(data)
	if err != nil {
		ov.refuse(kfile, entry, fmt.Sprintf("%s: reading the plugin configuration: %v", field, err))
		return
	}
	builtin := map[string]bool{}
	for _, n := range krusty.GetBuiltinPluginNames() {
		builtin[n] = true
	}
	for _, d := range docs {
		kind, _ := d["kind"].(string)
		api, _ := d["apiVersion"].(string)
		md, _ := d["metadata"].(map[string]any)
		ann, _ := md["annotations"].(map[string]any)
		_, fn1 := ann["config.kubernetes.io/function"]
		_, fn2 := ann["config.k8s.io/function"]
		if fn1 || fn2 || api != "builtin" || !builtin[kind] {
			ov.refuse(kfile, entry, fmt.Sprintf("%s entry %s (apiVersion %q) is a plugin or KRM function; only builtin generators and transformers run", field, kind, api))
			continue
		}
		if kind == "HelmChartInflationGenerator" {
			ov.refuse(kfile, entry, fmt.Sprintf("%s entry %s is not run: it downloads charts and runs helm; render the chart as a chart instead", field, kind))
			continue
		}
		refs, err := pluginPaths(field, entry, d)
		if err != nil {
			ov.refuse(kfile, entry, fmt.Sprintf("%s entry %s: reading its configuration: %v", field, kind, err))
			continue
		}
		for _, r := range refs {
			ov.checkRef(kfile, dir, r, depth)
		}
	}
}

// refuse refuses the overlay with msg at the first line of kfile that
// holds needle's first line, and the column needle starts at (line 0 when
// none holds it).
func (ov *overlay) refuse(kfile, needle, msg string) {
	line, col := 0, 0
	needle, _, _ = strings.Cut(strings.TrimSpace(needle), "\n")
	if needle != "" {
		for i, l := range strings.Split(string(ov.text(kfile)), "\n") {
			if c := strings.Index(l, needle); c >= 0 {
				line, col = i+1, c+1
				break
			}
		}
	}
	ov.problems = append(ov.problems, rendered.Problem{File: kfile, Line: line, Column: col, Message: msg})
}

func (ov *overlay) kustomizationIn(dir string) string {
	for _, n := range rendered.KustomizationNames {
		p := path.Join(dir, n)
		if dir == "" {
			p = n
		}
		if _, ok := ov.files[p]; ok {
			return p
		}
	}
	return ""
}

// decodeStrict decodes every document of data, failing on the first that
// does not decode, so that no plugin configuration goes unchecked.
func decodeStrict(data []byte) ([]map[string]any, error) {
	var out []map[string]any
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if m != nil {
			out = append(out, m)
		}
	}
}

func decodeAll(data []byte) []map[string]any {
	var out []map[string]any
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			break
		}
		if m != nil {
			out = append(out, m)
		}
	}
	return out
}

func isJSONPatch(data []byte) bool {
	var ops []map[string]any
	if err := yaml.Unmarshal(data, &ops); err != nil {
		return false
	}
	return len(ops) > 0 && ops[0]["op"] != nil
}

func smpTargets(file string, data []byte) []patchFile {
	var out []patchFile
	for _, d := range decodeAll(data) {
		kind, _ := d["kind"].(string)
		md, _ := d["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		out = append(out, patchFile{file: file, kind: kind, name: name})
	}
	return out
}

// memFS fills an in-memory file system with the files under the tree's
// kustomization folders and the files the walk found, and returns it with
// their paths, sorted; with origins, the root kustomization asks for
// origin annotations. added reports whether the annotation was added here
// (and must be removed).
func (ov *overlay) memFS(kfile string, origins bool) (fs filesys.FileSystem, paths []string, added bool, err error) {
	fs, paths, err = ov.fill()
	if err != nil || !origins {
		return fs, paths, false, err
	}
	added, err = ov.askOrigins(fs, kfile)
	return fs, paths, added, err
}

// fill writes the files under the tree's kustomization folders and the
// files the walk found to an in-memory file system, in the order of their
// paths (so that the first file that cannot be read is always the same).
func (ov *overlay) fill() (filesys.FileSystem, []string, error) {
	fs := filesys.MakeFsInMemory()
	written := map[string]bool{}
	for d := range ov.dirs {
		for _, p := range ov.files.Under(d) {
			written[p] = true
		}
	}
	for p := range ov.inputs {
		written[p] = true
	}
	paths := make([]string, 0, len(written))
	for p := range written {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		data, _, err := ov.data(p)
		if err != nil {
			return nil, nil, err
		}
		if err := fs.WriteFile("/"+p, data); err != nil {
			return nil, nil, fmt.Errorf("filling in-memory file system: %w", err)
		}
	}
	return fs, paths, nil
}

// askOrigins rewrites the root kustomization kfile in fs to ask for origin
// annotations, unless it does; it reports whether it did.
func (ov *overlay) askOrigins(fs filesys.FileSystem, kfile string) (bool, error) {
	var k map[string]any
	if err := yaml.Unmarshal(ov.text(kfile), &k); err != nil || k == nil {
		return false, nil
	}
	meta, _ := k["buildMetadata"].([]any)
	for _, m := range meta {
		if m == types.OriginAnnotations {
			return false, nil
		}
	}
	k["buildMetadata"] = append(meta, types.OriginAnnotations)
	data, err := yaml.Marshal(k)
	if err != nil {
		return false, fmt.Errorf("asking for origin annotations: %w", err)
	}
	if err := fs.WriteFile("/"+kfile, data); err != nil {
		return false, fmt.Errorf("filling in-memory file system: %w", err)
	}
	return true, nil
}
