package render

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/prodready/prodready/checks/rendered"
	"go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// kustomization is the part of a kustomization file this package reads.
type kustomization struct {
	Resources             []string         `yaml:"resources"`
	Bases                 []string         `yaml:"bases"`
	Components            []string         `yaml:"components"`
	PatchesStrategicMerge []string         `yaml:"patchesStrategicMerge"`
	PatchesJSON6902       []patchRef       `yaml:"patchesJson6902"`
	Patches               []patchRef       `yaml:"patches"`
	Generators            []string         `yaml:"generators"`
	Transformers          []string         `yaml:"transformers"`
	Validators            []string         `yaml:"validators"`
	HelmCharts            []map[string]any `yaml:"helmCharts"`
	HelmGlobals           map[string]any   `yaml:"helmGlobals"`
	BuildMetadata         []string         `yaml:"buildMetadata"`
	ConfigMapGenerator    []generatorRef   `yaml:"configMapGenerator"`
	SecretGenerator       []generatorRef   `yaml:"secretGenerator"`
	Configurations        []string         `yaml:"configurations"`
	Crds                  []string         `yaml:"crds"`
	OpenAPI               map[string]any   `yaml:"openapi"`
}

type patchRef struct {
	Path   string `yaml:"path"`
	Patch  string `yaml:"patch"`
	Target *struct {
		Kind string `yaml:"kind"`
		Name string `yaml:"name"`
	} `yaml:"target"`
}

type generatorRef struct {
	Name  string   `yaml:"name"`
	Files []string `yaml:"files"`
	Envs  []string `yaml:"envs"`
	Env   string   `yaml:"env"`
}

// overlay is what the pre-build walk learns about a kustomization tree.
type overlay struct {
	files    rendered.Files
	inputs   map[string]bool
	dirs     map[string]bool // kustomization folders of the tree
	patches  []patchFile
	problems []rendered.Problem
}

// patchFile is a patch of the tree with its target.
type patchFile struct {
	file       string
	json6902   bool
	kind, name string // target; empty name matches any
}

// RenderKustomization builds the kustomization file kfile of files with
// kustomize's builtin generators and transformers on an in-memory file system.
// Plugins, helmCharts inflation and remote resources are refused with a
// problem on the kustomization that asks for them.
func RenderKustomization(ctx context.Context, files rendered.Files, kfile string, opts rendered.Options) *rendered.Render {
	opts = opts.WithDefaults()
	r := &rendered.Render{Kind: Kustomize, Root: kfile}
	ov := &overlay{files: files, inputs: map[string]bool{}, dirs: map[string]bool{}}
	ov.walk(kfile, 0)
	for in := range ov.inputs {
		r.Inputs = append(r.Inputs, in)
	}
	r.Problems = append(r.Problems, ov.problems...)
	if len(ov.problems) > 0 {
		skipAll(r, "overlay refused")
		return finish(r)
	}

	fs, added, err := ov.memFS(kfile)
	if err != nil {
		r.Problems = append(r.Problems, rendered.Problem{File: kfile, Message: err.Error()})
		return finish(r)
	}
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	m, err := runKrusty(ctx, fs, path.Dir(kfile))
	if err != nil {
		r.Problems = append(r.Problems, rendered.Problem{File: kfile, Message: fmt.Sprintf("kustomize build: %v", err)})
		skipAll(r, "build failed")
		return finish(r)
	}
	ov.documents(r, m, path.Dir(kfile), added, opts)
	return finish(r)
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
		return nil, fmt.Errorf("build stopped: %w", ctx.Err())
	}
}

const maxOverlayDepth = 20

// walk reads a kustomization and everything it references, refusing what
// this package does not run.
func (ov *overlay) walk(kfile string, depth int) {
	dir := cleanDir(path.Dir(kfile))
	if ov.dirs[dir] || depth > maxOverlayDepth {
		return
	}
	ov.dirs[dir] = true
	ov.inputs[kfile] = true
	var k kustomization
	if err := yaml.Unmarshal(ov.files[kfile], &k); err != nil {
		ov.refuse(kfile, "", fmt.Sprintf("reading kustomization: %v", err))
		return
	}
	if len(k.HelmCharts) > 0 || k.HelmGlobals != nil {
		ov.refuse(kfile, "helmCharts", "helmCharts inflation is not run: it downloads charts and runs helm; render the chart as a chart instead")
	}
	for _, field := range []struct {
		name    string
		entries []string
	}{{"generators", k.Generators}, {"transformers", k.Transformers}, {"validators", k.Validators}} {
		for _, e := range field.entries {
			ov.checkPlugin(kfile, dir, field.name, e, depth)
		}
	}
	refs := append(append(append([]string(nil), k.Resources...), k.Bases...), k.Components...)
	for _, ref := range refs {
		if remote(ref) {
			ov.refuse(kfile, ref, fmt.Sprintf("remote resource %q is not fetched", ref))
			continue
		}
		target, ok := join(dir, ref)
		if !ok {
			ov.refuse(kfile, ref, fmt.Sprintf("resource %q leads outside the repository", ref))
			continue
		}
		if kf := ov.kustomizationIn(target); kf != "" {
			ov.walk(kf, depth+1)
			continue
		}
		if _, ok := ov.files[target]; !ok {
			ov.refuse(kfile, ref, fmt.Sprintf("resource %q is not in the repository", ref))
			continue
		}
		ov.inputs[target] = true
	}
	for _, p := range k.PatchesStrategicMerge {
		if target, ok := join(dir, p); ok {
			if _, ok := ov.files[target]; ok {
				ov.inputs[target] = true
				ov.patches = append(ov.patches, smpTargets(target, ov.files[target])...)
			}
		}
	}
	for _, group := range [][]patchRef{k.PatchesJSON6902, k.Patches} {
		for _, p := range group {
			if p.Path == "" {
				continue
			}
			target, ok := join(dir, p.Path)
			if !ok {
				continue
			}
			data, ok := ov.files[target]
			if !ok {
				continue
			}
			ov.inputs[target] = true
			isJSON := isJSONPatch(data)
			if p.Target != nil {
				ov.patches = append(ov.patches, patchFile{file: target, json6902: isJSON, kind: p.Target.Kind, name: p.Target.Name})
			} else if !isJSON {
				ov.patches = append(ov.patches, smpTargets(target, data)...)
			}
		}
	}
	for _, g := range append(append([]generatorRef(nil), k.ConfigMapGenerator...), k.SecretGenerator...) {
		for _, f := range append(append(append([]string(nil), g.Files...), g.Envs...), g.Env) {
			if f == "" {
				continue
			}
			if _, rel, ok := strings.Cut(f, "="); ok {
				f = rel
			}
			if target, ok := join(dir, f); ok {
				ov.inputs[target] = true
			}
		}
	}
	// kustomize fails on a missing configurations or crds file; krusty on
	// an in-memory filesystem builds without it, so it is refused here.
	for _, field := range []struct {
		name    string
		entries []string
	}{{"configurations", k.Configurations}, {"crds", k.Crds}} {
		for _, f := range field.entries {
			target, ok := join(dir, f)
			if _, there := ov.files[target]; !ok || !there {
				ov.refuse(kfile, f, fmt.Sprintf("%s entry %q is not in the repository", field.name, f))
				continue
			}
			ov.inputs[target] = true
		}
	}
}

// checkPlugin refuses generator, transformer and validator entries that are
// not builtin: exec and containerized plugins and KRM functions.
func (ov *overlay) checkPlugin(kfile, dir, field, entry string, depth int) {
	var docs []map[string]any
	if strings.Contains(entry, "\n") || strings.Contains(entry, ":") && !remote(entry) {
		docs = decodeAll([]byte(entry))
	} else if remote(entry) {
		ov.refuse(kfile, entry, fmt.Sprintf("remote %s entry %q is not fetched", field, entry))
		return
	} else if target, ok := join(dir, entry); ok {
		if kf := ov.kustomizationIn(target); kf != "" {
			ov.walk(kf, depth+1)
			return
		}
		data, ok := ov.files[target]
		if !ok {
			ov.refuse(kfile, entry, fmt.Sprintf("%s entry %q is not in the repository", field, entry))
			return
		}
		ov.inputs[target] = true
		docs = decodeAll(data)
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
		}
	}
}

func (ov *overlay) refuse(kfile, needle, msg string) {
	line := 0
	if needle != "" {
		for i, l := range strings.Split(string(ov.files[kfile]), "\n") {
			if strings.Contains(l, needle) {
				line = i + 1
				break
			}
		}
	}
	ov.problems = append(ov.problems, rendered.Problem{File: kfile, Line: line, Message: msg})
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

// remote reports whether a kustomization entry names something to download.
func remote(ref string) bool {
	for _, p := range []string{"http://", "https://", "git@", "ssh://", "git::", "github.com/", "gitlab.com/", "bitbucket.org/", "oci://"} {
		if strings.HasPrefix(ref, p) {
			return true
		}
	}
	return strings.Contains(ref, "?ref=") || strings.Contains(ref, ".git//") || strings.Contains(ref, "://")
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
// kustomization folders; the root kustomization asks for origin annotations.
// added reports whether the annotation was added here (and must be removed).
func (ov *overlay) memFS(kfile string) (filesys.FileSystem, bool, error) {
	fs := filesys.MakeFsInMemory()
	written := map[string]bool{}
	dirs := make([]string, 0, len(ov.dirs))
	for d := range ov.dirs {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		for _, p := range ov.files.Under(d) {
			if written[p] {
				continue
			}
			written[p] = true
			if err := fs.WriteFile("/"+p, ov.files[p]); err != nil {
				return nil, false, fmt.Errorf("filling in-memory file system: %w", err)
			}
		}
	}
	for p := range ov.inputs {
		if !written[p] {
			if err := fs.WriteFile("/"+p, ov.files[p]); err != nil {
				return nil, false, fmt.Errorf("filling in-memory file system: %w", err)
			}
		}
	}
	var k map[string]any
	if err := yaml.Unmarshal(ov.files[kfile], &k); err != nil || k == nil {
		return fs, false, nil
	}
	meta, _ := k["buildMetadata"].([]any)
	for _, m := range meta {
		if m == types.OriginAnnotations {
			return fs, false, nil
		}
	}
	k["buildMetadata"] = append(meta, types.OriginAnnotations)
	data, err := yaml.Marshal(k)
	if err != nil {
		return nil, false, fmt.Errorf("asking for origin annotations: %w", err)
	}
	if err := fs.WriteFile("/"+kfile, data); err != nil {
		return nil, false, fmt.Errorf("filling in-memory file system: %w", err)
	}
	return fs, true, nil
}
