package render

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"sigs.k8s.io/kustomize/api/types"
)

// refKind says how kustomize reads an entry of a path-taking field.
type refKind int

const (
	// refResource is a file, a kustomization folder, or (for kustomize, not
	// here) a URL or git repository: resources, bases, components.
	refResource refKind = iota
	// refPlugin is an inline plugin configuration or, failing that, read
	// like a resource: generators, transformers, validators.
	refPlugin
	// refFile is a file read with the loader, which fetches a URL.
	refFile
	// refInlineOrFile is an inline strategic merge patch or, failing that,
	// a file: patchesStrategicMerge.
	refInlineOrFile
)

// pathRef is one entry of a path-taking field, named as in the file
// (configMapGenerator[0].files[1]).
type pathRef struct {
	field string
	value string
	kind  refKind
	patch *types.Patch // the patches or patchesJson6902 entry of a path
	// at is the kustomization's entry the value was found through (a
	// transformers entry naming a file of plugin configurations), for the
	// line of a problem when the value is not in the kustomization itself.
	at string
}

// kustomizationPaths lists every entry of k that kustomize's loader reads as
// a path, a URL or a git reference, in the order krusty meets them. k is as
// types.Kustomization.Unmarshal left it (the decoding krusty does, keys
// matched without regard to case); FixKustomization is applied here, as
// krusty applies it, so deprecated fields are read where krusty reads them,
// while their entries keep the names of the file.
//
// The path-taking fields of types.Kustomization (kustomize/api v0.21.2):
//   - resources, bases (folded into resources), components: files,
//     kustomization folders, URLs (an HTTP get) and git references (a clone
//     with the git command).
//   - crds, configurations: files read with the loader.
//   - patchesStrategicMerge: an inline patch or, when it does not parse as
//     one, a file.
//   - patches[].path, patchesJson6902[].path: a file (patch is inline).
//   - replacements[].path: a file of replacements.
//   - configMapGenerator and secretGenerator: files ([key=]path; the type's
//     comment allows a folder, kustomize v0.21.2 requires a file), envs and
//     env (folded into envs).
//   - openapi.path: a schema file (openapi.version names a builtin schema).
//   - generators, transformers, validators: an inline plugin configuration
//     or a path read like a resource; the builtin plugins' own path fields
//     are listed by pluginPaths.
//   - helmCharts, helmGlobals and helmChartInflationGenerator (folded into
//     helmCharts and helmGlobals): valuesFile, additionalValuesFiles,
//     chartHome, repo. Not listed: helm inflation is refused as a whole.
//
// The other fields take no path: metadata, namePrefix, nameSuffix,
// namespace, commonLabels, labels, commonAnnotations, images, imageTags,
// replicas, vars and replacements' source and targets (their fieldPath and
// fieldPaths are paths inside objects), sortOptions, generatorOptions,
// buildMetadata, the generators' literals, and patches' target and options.
func kustomizationPaths(k *types.Kustomization) []pathRef {
	nResources := len(k.Resources)
	envs := func(g types.GeneratorArgs) (int, bool) { return len(g.EnvSources), g.EnvSource != "" }
	type envShape struct {
		n   int
		env bool
	}
	var cmEnvs, secretEnvs []envShape
	for _, g := range k.ConfigMapGenerator {
		n, e := envs(g.GeneratorArgs)
		cmEnvs = append(cmEnvs, envShape{n, e})
	}
	for _, g := range k.SecretGenerator {
		n, e := envs(g.GeneratorArgs)
		secretEnvs = append(secretEnvs, envShape{n, e})
	}
	k.FixKustomization()

	var out []pathRef
	add := func(field, value string, kind refKind) {
		out = append(out, pathRef{field: field, value: value, kind: kind})
	}
	for i, r := range k.Resources {
		if i < nResources {
			add(fmt.Sprintf("resources[%d]", i), r, refResource)
		} else {
			add(fmt.Sprintf("bases[%d]", i-nResources), r, refResource)
		}
	}
	for i, r := range k.Components {
		add(fmt.Sprintf("components[%d]", i), r, refResource)
	}
	for _, f := range []struct {
		name    string
		entries []string
	}{{"generators", k.Generators}, {"transformers", k.Transformers}, {"validators", k.Validators}} {
		for i, e := range f.entries {
			add(fmt.Sprintf("%s[%d]", f.name, i), e, refPlugin)
		}
	}
	for i, f := range k.Crds {
		add(fmt.Sprintf("crds[%d]", i), f, refFile)
	}
	for i, f := range k.Configurations {
		add(fmt.Sprintf("configurations[%d]", i), f, refFile)
	}
	for i, p := range k.PatchesStrategicMerge {
		add(fmt.Sprintf("patchesStrategicMerge[%d]", i), string(p), refInlineOrFile)
	}
	for _, f := range []struct {
		name    string
		patches []types.Patch
	}{{"patchesJson6902", k.PatchesJson6902}, {"patches", k.Patches}} {
		for i := range f.patches {
			if p := &f.patches[i]; p.Path != "" {
				out = append(out, pathRef{field: fmt.Sprintf("%s[%d].path", f.name, i), value: p.Path, kind: refFile, patch: p})
			}
		}
	}
	for i, r := range k.Replacements {
		if r.Path != "" {
			add(fmt.Sprintf("replacements[%d].path", i), r.Path, refFile)
		}
	}
	generator := func(name string, i int, g types.GeneratorArgs, shape envShape) {
		for j, f := range g.FileSources {
			add(fmt.Sprintf("%s[%d].files[%d]", name, i, j), fileSourcePath(f), refFile)
		}
		for j, e := range g.EnvSources {
			if j >= shape.n && shape.env {
				add(fmt.Sprintf("%s[%d].env", name, i), e, refFile)
			} else {
				add(fmt.Sprintf("%s[%d].envs[%d]", name, i, j), e, refFile)
			}
		}
	}
	for i, g := range k.ConfigMapGenerator {
		generator("configMapGenerator", i, g.GeneratorArgs, cmEnvs[i])
	}
	for i, g := range k.SecretGenerator {
		generator("secretGenerator", i, g.GeneratorArgs, secretEnvs[i])
	}
	if p, ok := k.OpenAPI["path"]; ok {
		add("openapi.path", p, refFile)
	}
	return out
}

// fileSourcePath is the path of a generator files entry, [key=]path.
// kustomize refuses an entry with more than one '='; its path is read here
// as what follows the first, so that it is checked all the same.
func fileSourcePath(source string) string {
	if _, p, ok := strings.Cut(source, "="); ok {
		return p
	}
	return source
}

// pluginConfig holds the path fields of kustomize's builtin plugins, decoded
// as kustomize decodes them (JSON, keys matched without regard to case).
// Fields a kind does not have are empty or ignored by kustomize.
type pluginConfig struct {
	// PatchTransformer, PatchJson6902Transformer.
	Path string `json:"path"`
	// PatchStrategicMergeTransformer: inline patches or files.
	Paths []string `json:"paths"`
	// ReplacementTransformer.
	Replacements []struct {
		Path string `json:"path"`
	} `json:"replacements"`
	// ConfigMapGenerator, SecretGenerator.
	Files []string `json:"files"`
	Envs  []string `json:"envs"`
	Env   string   `json:"env"`
	// ValueAddTransformer.
	TargetFilePath string `json:"targetFilePath"`
}

// pluginPaths lists the path entries of a builtin plugin's configuration
// doc, named after prefix (transformers[0]).
func pluginPaths(prefix, entry string, doc map[string]any) ([]pathRef, error) {
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	var c pluginConfig
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	var out []pathRef
	add := func(field, value string, kind refKind) {
		if value != "" {
			out = append(out, pathRef{field: prefix + "." + field, value: value, kind: kind, at: entry})
		}
	}
	add("path", c.Path, refFile)
	for i, p := range c.Paths {
		add(fmt.Sprintf("paths[%d]", i), p, refInlineOrFile)
	}
	for i, r := range c.Replacements {
		add(fmt.Sprintf("replacements[%d].path", i), r.Path, refFile)
	}
	for i, f := range c.Files {
		add(fmt.Sprintf("files[%d]", i), fileSourcePath(f), refFile)
	}
	for i, e := range c.Envs {
		add(fmt.Sprintf("envs[%d]", i), e, refFile)
	}
	add("env", c.Env, refFile)
	add("targetFilePath", c.TargetFilePath, refFile)
	return out, nil
}

var (
	// schemeURL is a URL of any scheme: http://, https://, ssh://, file://,
	// oci://, s3:// …
	schemeURL = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)
	// scpUser is the user@ that makes kustomize read host:path as an
	// scp-style git reference (git@github.com:org/repo).
	scpUser = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9-]*@`)
)

// remoteRef reports whether a kustomization entry names something kustomize
// would download: an HTTP URL its loader gets (any case of the scheme, with
// or without slashes) or a reference its git cloner accepts (a scheme URL,
// git::, github.com/ or github.com: without a scheme, scp-style user@host,
// ?ref=, .git//). It also takes a URL of any other scheme for remote. The
// test is on the entry with surrounding space trimmed, and holds for a
// multi-line entry, which the git cloner would still take for a URL.
func remoteRef(entry string) bool {
	s := strings.TrimSpace(entry)
	lower := strings.ToLower(s)
	if schemeURL.MatchString(s) || scpUser.MatchString(s) {
		return true
	}
	for _, p := range []string{"git::", "github.com/", "github.com:", "gitlab.com/", "bitbucket.org/"} {
		if strings.HasPrefix(lower, p) {
			return true
		}
	}
	if strings.Contains(lower, "?ref=") || strings.Contains(lower, ".git//") {
		return true
	}
	if u, err := url.Parse(s); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		return true
	}
	return false
}
