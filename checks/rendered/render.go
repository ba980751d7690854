package rendered

import (
	"crypto/sha256"
	"path"
	"sync"
	"time"

	"github.com/prodready/prodready/checks"
)

// Kind says what produced a [Render].
type Kind string

const (
	// Helm marks a render of a Helm chart with one values set.
	Helm Kind = "helm"
	// Kustomize marks a build of a root kustomization.
	Kustomize Kind = "kustomize"
)

// Render is the outcome of rendering one chart with one values set, or of
// building one root kustomization.
type Render struct {
	// Kind is Helm or Kustomize.
	Kind Kind
	// Root is the chart folder (Helm) or the kustomization file (Kustomize),
	// relative to the repository root.
	Root string
	// ValuesFiles are the values files applied on top of the chart's
	// values.yaml, lowest precedence first; empty for the plain values.yaml
	// render and for kustomize.
	ValuesFiles []string
	// Stream is every rendered object as one multi-document YAML stream; each
	// document is preceded by "---" and a "# Source: <path>" comment.
	Stream []byte
	// Documents describes the documents of Stream, in order.
	Documents []Document
	// Inputs are the repository files the render read (sorted), so a caller
	// can tell that a changed file belongs to this render.
	Inputs []string
	// Skipped are input files that contributed no rendered object, with why.
	Skipped []Skipped
	// Unmapped are the templates some of whose rendered keys could not be
	// traced to their own line, with why (the tracing render failed, or a
	// chart computed a line of its output otherwise from the traced text):
	// those keys are placed at the nearest line known (the include that
	// called the helper, the key's parent), and findings placed so say why.
	Unmapped []Skipped
	// Problems are errors met while rendering; a render with problems may
	// still have documents.
	Problems []Problem
	// Unmatched are the patch and replacement targets of the build's
	// kustomizations that select no object of it (Kustomize only):
	// kustomize applies them to nothing and says nothing. The build is
	// whole; each is a finding of its own at its target.
	Unmatched []Unmatched
	// Unjudged are the kustomizations of the build whose targeted patches
	// or replacements were not judged for selecting nothing, with why (a
	// component's; any when a patch of the tree deletes): every output
	// says so.
	Unjudged []Skipped

	// Maps holds, per document, where each of its key paths comes from
	// (see Locate). A render whose maps are made on use (MapOnUse) has a
	// nil entry for each map not made yet: read them with Map.
	Maps []DocMap

	// onUse makes the maps not made yet; nil when Maps is complete.
	onUse *mapsOnUse
}

// mapsOnUse makes a render's source maps one document at a time, when a
// caller first asks for one.
type mapsOnUse struct {
	mu    sync.Mutex
	build func(doc int) DocMap
}

// MapOnUse makes the render's source maps when they are asked for (Map,
// MakeMaps): Maps gets a nil entry per document, and build(doc) makes
// document doc's map the first time it is read. A finding mapped from a
// render reads the maps of its own document only, and most documents have
// none: the maps of every document of every render were the largest share
// of a chart run's heap. build must be safe to call while other renders'
// maps are made, and must not keep its render's text alive beyond the
// render.
func (r *Render) MapOnUse(build func(doc int) DocMap) {
	r.Maps = nil
	if len(r.Documents) > 0 {
		r.Maps = make([]DocMap, len(r.Documents))
	}
	r.onUse = &mapsOnUse{build: build}
}

// Map returns document doc's source map (nil when doc is out of range),
// making it first when the render makes its maps on use.
func (r *Render) Map(doc int) DocMap {
	if doc < 0 || doc >= len(r.Maps) {
		return nil
	}
	if r.onUse == nil {
		return r.Maps[doc]
	}
	r.onUse.mu.Lock()
	defer r.onUse.mu.Unlock()
	if r.Maps[doc] == nil {
		m := r.onUse.build(doc)
		if m == nil {
			m = DocMap{}
		}
		r.Maps[doc] = m
	}
	return r.Maps[doc]
}

// MakeMaps makes every source map the render has not made yet, so that
// Maps is complete (for a render sent to another process).
func (r *Render) MakeMaps() {
	if r.onUse == nil {
		return
	}
	for i := range r.Maps {
		r.Map(i)
	}
}

// Document is one rendered object.
type Document struct {
	// Source is a stable path naming where the document comes from: the
	// template file of a chart (e.g. charts/web/templates/deployment.yaml), or
	// the resource file of an overlay's base; synthetic for generated objects.
	Source string
	// Line is the 1-based line of Stream where the document's content starts.
	Line int
	// YAML is the document's text, without the separator and Source comment.
	YAML []byte
	// APIVersion, Kind, Name and Namespace identify the object, as rendered.
	APIVersion, Kind, Name, Namespace string
}

// LocationKind says what sort of file a [Location] points at.
type LocationKind string

const (
	// Template is a line of a Helm template (including _helpers.tpl).
	Template LocationKind = "template"
	// Values is a key line of a Helm values file.
	Values LocationKind = "values"
	// Patch is a line of a kustomize patch (strategic merge or JSON 6902).
	Patch LocationKind = "patch"
	// Base is a line of a resource file a kustomization lists.
	Base LocationKind = "base"
	// Generator is the line of a kustomization declaring a generator.
	Generator LocationKind = "generator"
	// InlinePatch is a line of a patch written in a kustomization's
	// patches: entry (its patch: text). A fix is never an edit of it: one
	// edits a patch file or a base, or appends a patch after it.
	InlinePatch LocationKind = "inline-patch"
	// Replicas is the count line of a kustomization's replicas: entry
	// that sets a rendered object's spec.replicas (its name line when it
	// writes no count).
	Replicas LocationKind = "replicas"
	// ValuesPart is a key line of a Helm values file whose value is part
	// of a scalar that a template line composes from several actions
	// (image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"):
	// listed after that template line, one for each such action with a
	// values line, in the order they write. Never where a fix sets the
	// whole scalar.
	ValuesPart LocationKind = "values-part"
)

// Location is the place an author edits to change a rendered key.
type Location struct {
	// File is the repository path of the file to edit.
	File string
	// Line is 1-based; 0 means the file is known but not the line.
	Line int
	// Column is the 1-based column on Line where what the key path names
	// is written (its key, a sequence item's first key, or what a
	// template line writes first), as a plain manifest's finding names
	// its key's column; 0 when not known.
	Column int
	// Kind says whether File is a template, values file, patch, base or
	// kustomization.
	Kind LocationKind
	// Inherited is true when the asked path had no location of its own and
	// this is the one of its nearest ancestor that has one.
	Inherited bool
}

// Problem is an error item of a render: a chart or overlay that failed, a
// refused feature, a missing dependency, a bound reached.
type Problem struct {
	// File is the repository path the problem is about (Chart.yaml,
	// kustomization.yaml, a template).
	File string
	// Line is 1-based; 0 when no line applies.
	Line int
	// Column is the 1-based column on Line the problem is at (the action
	// a template's execution failed at, the values key a schema refuses),
	// 0 when not known.
	Column int `json:",omitempty"`
	// Message quotes the error.
	Message string
	// Bound marks the problem of a render cut at a bound (objects or
	// bytes): what rendered within it is checked, the rest is not, so the
	// problem is an error whatever else rendered.
	Bound bool `json:",omitempty"`
	// Missing marks a dependency the render could not have (a chart from
	// a chart repository, not vendored, not in the repository): the chart
	// is rendered without it and what rendered is checked, so the problem
	// is a warning however little rendered.
	Missing bool `json:",omitempty"`
	// Values marks a value a chart's values.schema.json refuses: helm
	// template and helm install refuse the values, so the problem is an
	// error; the render goes on, and what it renders is checked.
	Values bool `json:",omitempty"`
	// Refused marks what makes helm template and helm install refuse a
	// chart whatever else renders: a dependency under its charts/ that
	// Helm's loader refuses (a Chart.yaml it does not accept, an archive
	// it cannot read), a template whose output is not YAML. The problem
	// is an error; the render goes on without it, and what it renders is
	// checked.
	Refused bool `json:",omitempty"`
}

// Unmatched is a patch's or replacement's target that selects no object
// of its build: a finding of RuleID at File and Line.
type Unmatched struct {
	Problem
	// RuleID is the rule of its finding.
	RuleID string
	// Kustomization is the kustomization file the patch or replacement is
	// listed in: the build's root, or a base's (said once for all the
	// overlays that build on it).
	Kustomization string
}

// Skipped is an input file that did not become part of any rendered object.
type Skipped struct {
	// File is the repository path.
	File string
	// Reason says why, e.g. "dependency redis disabled by condition".
	Reason string
	// Writes are, for a template that renders nothing with these values,
	// the kinds of object its text writes (its `kind:` lines), and Guard
	// the action it opens with when that action may leave it empty
	// (`{{- if .Values.podDisruptionBudget }}`): what the chart has, that
	// its values leave out.
	Writes []string `json:",omitempty"`
	Guard  string   `json:",omitempty"`
}

// Options bound and parameterise a [Run]. The zero value is usable.
type Options struct {
	// KubeVersion is the Kubernetes version templates see in
	// .Capabilities.KubeVersion, such as "1.31"; DefaultKubeVersion when empty.
	KubeVersion string
	// ReleaseName and Namespace fill .Release.Name and .Release.Namespace;
	// "release" and "default" when empty.
	ReleaseName, Namespace string
	// ExtraValues maps a chart folder to values sets, each a list of values
	// files (repository paths) that make one more render of that chart,
	// layered in order on values.yaml.
	ExtraValues map[string][][]string
	// ValuesYAMLOnly renders each chart once, with its values.yaml alone:
	// no ci/*-values.yaml, values-*.yaml or ExtraValues sets.
	ValuesYAMLOnly bool
	// Timeout bounds the CPU time of each render (its share of the
	// process's while it runs, so a busy machine does not stop it), and ten
	// times it its wall time; DefaultTimeout when zero.
	Timeout time.Duration
	// MaxOutputBytes bounds the stream of each render; DefaultMaxOutputBytes
	// when zero.
	MaxOutputBytes int
	// MaxObjects bounds the documents of each render; DefaultMaxObjects when
	// zero.
	MaxObjects int
	// MaxRenders bounds the renders of a run; DefaultMaxRenders when zero.
	MaxRenders int
	// Roots, when set, are the folders whose charts and root
	// kustomizations a run renders; the set's other files are there for
	// those renders to read (the sibling chart a dependency resolves to,
	// an overlay's base): `check bitnami/redis` reads the repository and
	// renders redis. Empty: every chart and root kustomization.
	Roots []string `json:",omitempty"`
	// Only, when set, makes the one render it names and nothing else: an
	// isolated renderer gives each render a worker process of its own this
	// way.
	Only *Job `json:",omitempty"`
	// StreamOnly makes a render its stream and documents alone: no source
	// maps (Render.Maps holds an empty map per document) and no skipped
	// files. A chart then needs no second, marked render to trace template
	// lines; an overlay is built without the origin annotations its map
	// reads, which spares kustomize its record of every transformer on
	// every object (with the maps, a build of argo-cd's HA overlays then
	// takes a third of the time), and each document's Source names the
	// kustomization. For a caller
	// that checks the stream and never maps a finding back: the render of
	// a chart or overlay with a fix applied, made to see what the fix
	// changes.
	StreamOnly bool `json:",omitempty"`
	// Prior, with StreamOnly, are the documents of an earlier render of
	// the same chart (its values.yaml render, when a fix's check renders
	// it again with the fix's values edits): a document of the same
	// template and text as one of them is that document, with its kind
	// and names, and is not parsed again to split the stream (a values
	// edit changes a few documents; argo-cd's CRDs are 1.9 MB of text that
	// it does not). It is no part of a render worker's request.
	Prior []Document `json:"-"`
	// Read reads the files the set lists with no contents (a folder
	// listed with ListDir): a render reads them when it loads them and
	// holds them no longer than it needs them. A set sent to a render
	// worker is read whole first (WriteRequest).
	Read Reader `json:"-"`
	// Builds, when set, keeps the overlays this process builds with maps
	// by what each build reads, so that one asked for again with the same
	// files is not built again: prodready fix builds every overlay each
	// round, and one whose files the round's fixes left as they were builds
	// the same. It is no part of a render worker's request.
	Builds BuildCache `json:"-"`
}

// BuildCache keeps renders by a key of what they read (Options.Builds).
// Safe for concurrent use.
type BuildCache interface {
	// Build returns a copy of the render kept under key, or makes it with
	// build and keeps it when it has no problem.
	Build(key [sha256.Size]byte, build func() *Render) *Render
}

// Job is one render: a chart with a values set layered on its values.yaml,
// or a root kustomization.
type Job struct {
	// Chart is the chart's folder; Values the values files of the set
	// (empty: values.yaml alone).
	Chart  string   `json:",omitempty"`
	Values []string `json:",omitempty"`
	// Kustomization is the kustomization file of an overlay.
	Kustomization string `json:",omitempty"`
}

// ConfigOptions are the render options a config asks for: its Kubernetes
// version, one more render of a chart per values set under charts:, and
// each chart's values.yaml alone under chartValues: default.
func ConfigOptions(cfg *checks.Config) Options {
	opts := Options{KubeVersion: cfg.KubernetesVersion, ValuesYAMLOnly: cfg.ChartValuesOnlyDefault()}
	for _, ch := range cfg.Charts {
		if opts.ExtraValues == nil {
			opts.ExtraValues = map[string][][]string{}
		}
		var set []string
		for _, v := range ch.Values {
			set = append(set, path.Clean(v))
		}
		dir := CleanDir(ch.Path)
		opts.ExtraValues[dir] = append(opts.ExtraValues[dir], set)
	}
	return opts
}

// Defaults applied by [Run] to zero [Options] fields.
const (
	DefaultKubeVersion    = "1.31"
	DefaultTimeout        = 10 * time.Second
	DefaultMaxOutputBytes = 8 << 20
	DefaultMaxObjects     = 2000
	DefaultMaxRenders     = 500
)

// WithDefaults returns o with every zero field set to its default.
func (o Options) WithDefaults() Options {
	if o.KubeVersion == "" {
		o.KubeVersion = DefaultKubeVersion
	}
	if o.ReleaseName == "" {
		o.ReleaseName = "release"
	}
	if o.Namespace == "" {
		o.Namespace = "default"
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxOutputBytes <= 0 {
		o.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if o.MaxObjects <= 0 {
		o.MaxObjects = DefaultMaxObjects
	}
	if o.MaxRenders <= 0 {
		o.MaxRenders = DefaultMaxRenders
	}
	return o
}

// Result is the outcome of a [Run].
type Result struct {
	// Renders are the renders in a stable order: each chart's values.yaml
	// render by folder, then overlays by kustomization path, then the
	// charts' other values sets, by folder and set.
	Renders []*Render
	// Problems are problems of the run as a whole, such as the render cap.
	Problems []Problem
	// NotRendered are charts and kustomizations left out by the render cap.
	NotRendered []Skipped
}
