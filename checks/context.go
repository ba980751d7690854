package checks

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/internal/parallel"
	"go.yaml.in/yaml/v3"
)

// Context is what a rule sees besides its own object: every object of the
// run (all files given, so a PDB in another file counts), indexes built once,
// and the configuration.
type Context struct {
	Config *Config
	// objects are every object of the run, in run order (Objects).
	objects []*manifest.Object

	byKind map[string][]*manifest.Object
	// place holds each object's position in objects, effective namespace
	// and deployment unit: one map of the run's objects, where three took
	// 4.2 MB of a push's allocations at 50,000 objects, and as many
	// lookups again.
	place map[*manifest.Object]objectPlace
	// kustomizeImages holds, by image name, the folders of the
	// kustomizations whose images: entry rewrites it; kustDirs the
	// kustomization of each folder, and reached what each builds from
	// (see reach).
	kustomizeImages map[string][]string
	kustDirs        map[string]*manifest.Object
	reached         map[string]kustReach
	reachMu         *sync.Mutex // rules run in parallel; a pointer, as a rule may see a copy of the Context (Memo)
	// hpaTargets maps a kind and name to the autoscalers that scale it:
	// HPAs and KEDA ScaledObjects.
	hpaTargets map[kindName][]*manifest.Object

	// The indexes below keep cross-resource questions linear in the size
	// of the run: each is built once, in NewContext.
	// byKindName holds the objects sorted by kind and name, those of one
	// kind and name in run order (objectsNamed finds them by binary
	// search): a map of every kind and name, most of them one object's,
	// was 4.5 MB of a push's allocations at 50,000 objects.
	byKindName     []*manifest.Object
	workloads      []*manifest.Object               // objects with a pod template
	kustomizations []*manifest.Object               // kustomization documents
	podLabels      map[labelPair][]*manifest.Object // pod label → workloads
	services       anchorIndex                      // Services by selector
	pdbs           anchorIndex                      // PDBs by selector

	indexes *sync.Map // *Index[T] → *built

	// memo, when set, keeps what rules found on objects across runs
	// (Options.Memo); track, set on the copy of the Context one rule sees
	// for one object while a memo is kept, records what the rule read
	// besides that object and the config (see memo.go).
	memo    Memo
	track   *tracking
	digests *bucketDigests // shared by the copies, like indexes

	// dormant holds, by input path, what a rendered chart's input says
	// of its templates (Input.Dormant and Sources).
	dormant map[string]*templates
}

// templates are a rendered chart's templates that render nothing with
// its values, and the template each document of the render came from.
type templates struct {
	dormant []Dormant
	sources []string
}

// dormantFact is the dormant templates of an object's input, as one
// string: what DormantTemplate reads, for the memo.
var dormantFact = NewObjectFact(func(c *Context, o *manifest.Object) string {
	in := c.templatesOf(o)
	if in == nil {
		return ""
	}
	var b strings.Builder
	if o.Doc >= 0 && o.Doc < len(in.sources) {
		b.WriteString(in.sources[o.Doc])
	}
	for _, d := range in.dormant {
		fmt.Fprintf(&b, "\x01%s\x00%s\x00%s", d.File, strings.Join(d.Kinds, ","), d.Guard)
	}
	return b.String()
})

// templatesOf returns what o's input says of its chart's templates, or nil.
func (c *Context) templatesOf(o *manifest.Object) *templates {
	if o.File == nil {
		return nil
	}
	return c.dormant[o.File.Path]
}

// DormantTemplate returns the template of the chart o was rendered from
// that writes an object of kind for o but renders nothing with the values
// o was rendered with (a pdb.yaml under `{{- if .Values.pdb.enabled }}`),
// and whether there is one: what a rule that finds such an object missing
// points to, rather than to a new one. A template is o's when it lies in
// the folder of the template o was rendered from or in a folder above it,
// the nearest one first, and of several there the one whose name begins
// as that template's does (webhook-pdb.yaml for webhook-deployment.yaml):
// a chart of several components (templates/server/pdb.yaml,
// templates/repo/pdb.yaml) has none for a component without its own, and
// none is chosen among several that are all as near.
func (c *Context) DormantTemplate(o *manifest.Object, kind string) (Dormant, bool) {
	if c.Fact(dormantFact, o) == "" {
		return Dormant{}, false
	}
	in := c.templatesOf(o)
	if o.Doc < 0 || o.Doc >= len(in.sources) {
		return Dormant{}, false
	}
	src := in.sources[o.Doc]
	dir := path.Dir(src)
	var near []Dormant // those in the nearest folder
	for _, d := range in.dormant {
		at := path.Dir(d.File)
		if !slices.Contains(d.Kinds, kind) || at != dir && !strings.HasPrefix(dir, at+"/") {
			continue
		}
		switch {
		case len(near) == 0 || len(at) > len(path.Dir(near[0].File)):
			near = []Dormant{d}
		case len(at) == len(path.Dir(near[0].File)):
			near = append(near, d)
		}
	}
	if len(near) == 1 {
		return near[0], true
	}
	best, bestLen, ties := Dormant{}, 0, 0
	for _, d := range near {
		switch n := sharedPrefix(path.Base(d.File), path.Base(src)); {
		case n > bestLen:
			best, bestLen, ties = d, n, 1
		case n == bestLen:
			ties++
		}
	}
	return best, bestLen > 0 && ties == 1
}

// sharedPrefix returns how many leading bytes a and b share.
func sharedPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// objectPlace is where an object is in its run: its position in Objects,
// and its scope, held once for the objects that have it alike (a few
// hundred at 50,000 objects, where the two strings in every object's
// place were 2 MB of a push's allocations); the zero objectPlace (of an
// object not in the run) has none.
type objectPlace struct {
	order int
	scope *objectScope
}

// objectScope is an object's effective namespace (Namespace) and
// deployment unit (Unit).
type objectScope struct{ namespace, unit string }

// namespace is the object's effective namespace, "" when p has no scope.
func (p objectPlace) namespace() string {
	if p.scope == nil {
		return ""
	}
	return p.scope.namespace
}

// unit is the object's deployment unit, "" when p has no scope.
func (p objectPlace) unit() string {
	if p.scope == nil {
		return ""
	}
	return p.scope.unit
}

// kindName keys objects by kind and name.
type kindName struct{ kind, name string }

// LabelPair is one key=value label.
type labelPair struct{ k, v string }

// anchorIndex finds the objects whose selector may select a set of labels
// without testing every one: each selector is filed under one of its
// key=value pairs (its anchor), which any label set it selects must carry.
// Selectors without a pair of their own are always candidates.
type anchorIndex struct {
	byPair map[labelPair][]*manifest.Object
	always []*manifest.Object
}

// add files one's object (an element of the run's objects, clipped, as
// appendObject takes it) under one of pairs.
func (x *anchorIndex) add(one []*manifest.Object, pairs map[string]string) {
	if len(pairs) == 0 {
		x.always = append(x.always, one[0])
		return
	}
	first := ""
	for k := range pairs {
		if first == "" || k < first {
			first = k
		}
	}
	if x.byPair == nil {
		x.byPair = map[labelPair][]*manifest.Object{}
	}
	p := labelPair{first, pairs[first]}
	x.byPair[p] = appendObject(x.byPair[p], one)
}

// candidates returns the objects whose selector may select lbls, in run
// order.
func (c *Context) candidates(x *anchorIndex, lbls map[string]string) []*manifest.Object {
	c.readOthers()
	out := append([]*manifest.Object(nil), x.always...)
	for k, v := range lbls {
		out = append(out, x.byPair[labelPair{k, v}]...)
	}
	if len(out) > 1 {
		sort.Slice(out, func(i, j int) bool { return c.place[out[i]].order < c.place[out[j]].order })
	}
	return out
}

// indexedByContext reports whether NewContext reads o's typed value (a
// Service's or PDB's selector, an autoscaler's target): a lean run keeps
// those values from the decode until the object's own rules have run,
// where it lets the others go at once (manifest.DecodePendingFilesDropping)
// and NewContext reads workloads' pod labels through Object.PodMeta.
func indexedByContext(o *manifest.Object) bool {
	switch o.Kind {
	case "Service", "PodDisruptionBudget", "HorizontalPodAutoscaler":
		return true
	}
	return false
}

// NewContext indexes objects for the rules.
func NewContext(cfg *Config, objects []*manifest.Object) *Context {
	c := &Context{
		Config:          cfg,
		objects:         objects,
		indexes:         &sync.Map{},
		digests:         &bucketDigests{},
		byKind:          map[string][]*manifest.Object{},
		place:           make(map[*manifest.Object]objectPlace, len(objects)),
		kustomizeImages: map[string][]string{},
		reached:         map[string]kustReach{},
		reachMu:         &sync.Mutex{},
		podLabels:       map[labelPair][]*manifest.Object{},
	}
	// The objects by kind and name are sorted on another core meanwhile:
	// at 50,000 objects the sort was some 25 ms of a push's wall time
	// after the indexes' 75 ms, all on one core. It only reads objects'
	// kinds and names, which nothing below writes.
	var byKindName []*manifest.Object
	sorted := parallel.Go(func() { byKindName = sortedByKindName(objects) })
	// The selector indexes sized once, for every Service and PDB: grown,
	// they were 4.5 MB of a push's allocations at 50,000 objects.
	services, pdbs := 0, 0
	for _, o := range objects {
		switch o.Kind {
		case "Service":
			services++
		case "PodDisruptionBudget":
			pdbs++
		}
	}
	c.services.byPair = make(map[labelPair][]*manifest.Object, services)
	c.pdbs.byPair = make(map[labelPair][]*manifest.Object, pdbs)
	kustomizations := map[string]*manifest.Object{} // folder → kustomization
	for _, o := range objects {
		if IsKustomization(o) {
			kustomizations[path.Dir(o.File.Path)] = o
			c.kustomizations = append(c.kustomizations, o)
			c.collectKustomizeImages(o)
		}
	}
	// Each object's place (its unit and namespace) is found on another
	// core meanwhile: it reads only the kustomizations, found above, and
	// the objects' files, names and namespaces, which nothing below
	// writes; after the indexes on one core it was some 10 ms of a push's
	// wall time at 50,000 objects.
	placed := parallel.Go(func() { c.placeObjects(objects, kustomizations) })
	// A key's first object is objects' own element, clipped (an append
	// copies it): most kinds and names, and most pod labels, have one
	// object, and a slice made for each was 50,000 allocations of a push.
	for i, o := range objects {
		one := objects[i : i+1 : i+1]
		c.byKind[o.Kind] = append(c.byKind[o.Kind], o)
		if podLabels, _, ok := o.PodMeta(); ok {
			c.workloads = append(c.workloads, o)
			for k, v := range podLabels {
				c.podLabels[labelPair{k, v}] = appendObject(c.podLabels[labelPair{k, v}], one)
			}
		}
		if !indexedByContext(o) {
			continue // its typed value, perhaps let go, is not read here
		}
		switch v := o.Typed().(type) {
		case *corev1.Service:
			if len(v.Spec.Selector) > 0 { // an empty selector selects nothing
				c.services.add(one, writtenSelector(v.Spec.Selector))
			}
		case *policyv1.PodDisruptionBudget:
			if v.Spec.Selector != nil { // a nil selector selects nothing
				c.pdbs.add(one, v.Spec.Selector.MatchLabels)
			}
		}
	}
	autoscalers := append(append([]*manifest.Object(nil), c.byKind["HorizontalPodAutoscaler"]...), c.byKind["ScaledObject"]...)
	// Sized once: grown, it was 1.9 MB of a push at 50,000 objects.
	c.hpaTargets = make(map[kindName][]*manifest.Object, len(autoscalers))
	for _, h := range autoscalers {
		kind, name := hpaTarget(h)
		if name != "" {
			c.hpaTargets[kindName{kind, name}] = append(c.hpaTargets[kindName{kind, name}], h)
		}
	}
	c.kustDirs = kustomizations
	sorted()
	placed()
	c.byKindName = byKindName
	return c
}

// placeObjects sets each object's place in c (its order in objects, its
// effective namespace and its deployment unit: the folder of the nearest
// kustomization above its file, of kustomizations by folder, else its
// file's folder).
func (c *Context) placeObjects(objects []*manifest.Object, kustomizations map[string]*manifest.Object) {
	type unitOf struct {
		dir  string
		kust *manifest.Object // the unit's kustomization, nil when none
	}
	// The objects of a file share their unit, and come one after another:
	// the last file's is kept (a map of every file's was 1.5 MB of a push
	// at 50,000 objects), and a file met again has it found again.
	var last *manifest.File
	var u unitOf
	scopes := map[objectScope]*objectScope{}
	var scope *objectScope // the last object's: a file's objects share theirs
	for i, o := range objects {
		if o.File != last || i == 0 {
			last, u = o.File, unitOf{}
			dir := path.Dir(o.File.Path)
			u.dir = dir
			for d := dir; ; d = path.Dir(d) {
				if k, ok := kustomizations[d]; ok {
					u = unitOf{d, k}
					break
				}
				if d == "." || d == "/" || d == path.Dir(d) {
					break
				}
			}
		}
		ns := o.Namespace
		if ns == "" && u.kust != nil {
			ns, _ = u.kust.Scalar("namespace")
		}
		if scope == nil || scope.namespace != ns || scope.unit != u.dir {
			k := objectScope{ns, u.dir}
			if scope = scopes[k]; scope == nil {
				scope = &k
				scopes[k] = scope
			}
		}
		c.place[o] = objectPlace{order: i, scope: scope}
	}
}

// sortedByKindName returns objects sorted by kind and name, those of one
// kind and name in their order in objects.
func sortedByKindName(objects []*manifest.Object) []*manifest.Object {
	order := make([]int32, len(objects))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		b := objects[j]
		if c := compareKindName(objects[i], kindName{b.Kind, b.Name}); c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
	out := make([]*manifest.Object, len(objects))
	for i, k := range order {
		out[i] = objects[k]
	}
	return out
}

// objectsNamed returns the objects of kind named name, in run order (a
// slice of byKindName, clipped: an append copies it), or nil.
func (c *Context) objectsNamed(kind, name string) []*manifest.Object {
	k := kindName{kind, name}
	i, found := slices.BinarySearchFunc(c.byKindName, k, compareKindName)
	if !found {
		return nil
	}
	j := i + 1
	for j < len(c.byKindName) && compareKindName(c.byKindName[j], k) == 0 {
		j++
	}
	return c.byKindName[i:j:j]
}

// compareKindName orders o by kind, then name, against k: byKindName's
// order, which sortedByKindName makes and objectsNamed searches.
func compareKindName(o *manifest.Object, k kindName) int {
	if c := strings.Compare(o.Kind, k.kind); c != 0 {
		return c
	}
	return strings.Compare(o.Name, k.name)
}

// appendObject appends one's object to l, or returns one (an element of
// the run's objects, clipped) when l is empty.
func appendObject(l, one []*manifest.Object) []*manifest.Object {
	if len(l) == 0 {
		return one
	}
	return append(l, one[0])
}

// RolloutHashLabel is the pod label Argo Rollouts puts on a Rollout's pods,
// and adds to the selectors of the Services its strategy names, at run
// time: no manifest writes it on a pod template.
const RolloutHashLabel = "rollouts-pod-template-hash"

// writtenSelector returns a Service's selector without RolloutHashLabel:
// the part that manifests' pod labels can match (the same map when the
// key is absent).
func writtenSelector(sel map[string]string) map[string]string {
	if _, ok := sel[RolloutHashLabel]; !ok {
		return sel
	}
	out := make(map[string]string, len(sel))
	for k, v := range sel {
		if k != RolloutHashLabel {
			out[k] = v
		}
	}
	return out
}

// IsKEDAScaledObject reports whether o is a KEDA ScaledObject, which
// creates and owns an HPA for the workload its scaleTargetRef names.
func IsKEDAScaledObject(o *manifest.Object) bool {
	return o.Kind == "ScaledObject" && strings.HasPrefix(o.APIVersion, "keda.sh/")
}

func IsKustomization(o *manifest.Object) bool {
	base := path.Base(o.File.Path)
	named := base == "kustomization.yaml" || base == "kustomization.yml" || base == "Kustomization"
	return (o.Kind == "Kustomization" && strings.HasPrefix(o.APIVersion, "kustomize.config.k8s.io/")) ||
		(named && o.Kind == "") || (named && o.Kind == "Kustomization" && !strings.Contains(o.APIVersion, "toolkit.fluxcd.io"))
}

func (c *Context) collectKustomizeImages(k *manifest.Object) {
	imgs := k.Node("images")
	if imgs == nil {
		return
	}
	for _, item := range imgs.Content {
		if _, v := manifest.MapEntry(item, "name"); v != nil {
			c.kustomizeImages[v.Value] = append(c.kustomizeImages[v.Value], path.Dir(k.File.Path))
		}
	}
}

// ByKind returns every object of kind, in run order.
func (c *Context) ByKind(kind string) []*manifest.Object {
	c.readBucket("kind:" + kind)
	return c.byKind[kind]
}

// Objects returns every object of the run, in run order.
func (c *Context) Objects() []*manifest.Object {
	c.readOthers()
	return c.objects
}

// ByKindName returns every object of kind named name, in run order.
func (c *Context) ByKindName(kind, name string) []*manifest.Object {
	c.readBucket("kn:" + kind + "\x00" + name)
	return c.objectsNamed(kind, name)
}

// Workloads returns every object with a pod template, in run order.
func (c *Context) Workloads() []*manifest.Object {
	c.readOthers()
	return c.workloads
}

// Kustomizations returns every kustomization document, in run order.
func (c *Context) Kustomizations() []*manifest.Object {
	c.readBucket("kust")
	return c.kustomizations
}

// Namespace returns the object's effective namespace: metadata.namespace,
// else the enclosing kustomization's namespace, else "" (unknown: it
// matches any namespace).
func (c *Context) Namespace(o *manifest.Object) string {
	c.readFact(namespaceFact, o)
	return c.place[o].namespace()
}

// SameNamespace reports whether a and b may live in one namespace: equal,
// or either unknown.
func (c *Context) SameNamespace(a, b *manifest.Object) bool {
	c.readFact(namespaceFact, a)
	c.readFact(namespaceFact, b)
	na, nb := c.place[a].namespace(), c.place[b].namespace()
	return na == "" || nb == "" || na == nb
}

// Unit returns the object's deployment unit: the folder of the nearest
// enclosing kustomization, else the object's own folder.
func (c *Context) Unit(o *manifest.Object) string {
	c.readFact(unitFact, o)
	return c.place[o].unit()
}

// KustomizeOverridesImage reports whether a kustomization that builds o
// rewrites image name in it (so its tag as written is a placeholder, and
// the tag the kustomization sets is checked at its own line): o's file is
// one that kustomization's resources, bases or components reach, or o is
// of a render of an overlay that reaches that kustomization (the build
// applied its images:). A kustomization elsewhere in the run that does
// not build o says nothing about o's image.
func (c *Context) KustomizeOverridesImage(o *manifest.Object, name string) bool {
	c.readBucket("kust") // all it reads besides o's path comes from them
	dirs := c.kustomizeImages[name]
	if len(dirs) == 0 {
		return false
	}
	for _, d := range dirs {
		// A file named, or one in a folder named that holds no
		// kustomization of the run.
		if r := c.reach(d); r.files[o.File.Path] || r.files[path.Dir(o.File.Path)] {
			return true
		}
	}
	if !FromRender(o) {
		return false
	}
	for d := path.Dir(o.File.Path); ; d = path.Dir(d) {
		if _, ok := c.kustDirs[d]; ok {
			r := c.reach(d)
			for _, k := range dirs {
				if r.dirs[k] {
					return true
				}
			}
			return false
		}
		if d == "." || d == "/" || d == path.Dir(d) {
			return false
		}
	}
}

// KustomizationBuilds reports whether kustomization kust (one of
// Kustomizations) builds o as written: o's file is one its resources,
// bases or components reach, or lies in a folder they name that holds no
// kustomization of the run. Never for o of a render, whose build is done.
func (c *Context) KustomizationBuilds(kust, o *manifest.Object) bool {
	c.readBucket("kust") // all it reads besides the two paths comes from them
	if FromRender(o) || kust.File == nil || o.File == nil {
		return false
	}
	r := c.reach(path.Dir(kust.File.Path))
	return r.files[o.File.Path] || r.files[path.Dir(o.File.Path)]
}

// renderInputPrefix begins the name of the input that holds a render's
// objects (package rendered names it so, in the folder of the chart or
// under the overlay's kustomization).
const renderInputPrefix = ".prodready-render-"

// FromRender reports whether o is of a render, a chart's or an overlay's
// output, rather than of a file as written: what a kustomization does to
// it (replicas:, images:) is done already.
func FromRender(o *manifest.Object) bool {
	return strings.HasPrefix(path.Base(o.File.Path), renderInputPrefix)
}

// kustReach is what a kustomization builds from: the files its
// resources, bases and components name, and the kustomization folders
// (its own too) whose entries it takes, through every level.
type kustReach struct {
	files, dirs map[string]bool
}

// maxKustReach bounds the kustomization folders one reach walks.
const maxKustReach = 1000

// reach returns what the kustomization of folder dir builds from,
// computed once per folder.
func (c *Context) reach(dir string) kustReach {
	c.reachMu.Lock()
	defer c.reachMu.Unlock()
	if r, ok := c.reached[dir]; ok {
		return r
	}
	r := kustReach{files: map[string]bool{}, dirs: map[string]bool{}}
	todo := []string{dir}
	for len(todo) > 0 && len(r.dirs) < maxKustReach {
		d := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		k, ok := c.kustDirs[d]
		if !ok || r.dirs[d] {
			continue
		}
		r.dirs[d] = true
		for _, field := range []string{"resources", "bases", "components"} {
			list := k.Node(field)
			if list == nil || list.Kind != yaml.SequenceNode {
				continue
			}
			for _, it := range list.Content {
				if it.Kind != yaml.ScalarNode || strings.Contains(it.Value, "://") {
					continue
				}
				p := path.Join(d, it.Value)
				if _, isKust := c.kustDirs[p]; isKust {
					todo = append(todo, p)
				} else {
					r.files[p] = true
				}
			}
		}
	}
	c.reached[dir] = r
	return r
}

// SelectorMatches reports whether a label selector selects labels, with
// Kubernetes's own semantics (matchLabels and matchExpressions). A nil
// selector selects nothing; an empty one selects everything.
func SelectorMatches(sel *metav1.LabelSelector, lbls map[string]string) bool {
	if sel == nil {
		return false
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false
	}
	return s.Matches(labels.Set(lbls))
}

// MapSelectorMatches reports whether a plain map selector (a Service's)
// selects lbls. An empty map selects nothing, as for Services.
func MapSelectorMatches(sel map[string]string, lbls map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	// What labels.SelectorFromSet(sel).Matches(lbls) decides (one Equals
	// requirement per entry), without building and sorting a selector on
	// every call: rules ask it for every Service and workload pair.
	for k, v := range sel {
		if got, ok := lbls[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// SelectingServices returns every Service of the run whose selector selects
// a workload's pods, in the workload's namespace: the plain selector match,
// without RolloutHashLabel (Argo Rollouts adds it to the Services a Rollout
// names, and to its pods, at run time).
// Whether such a Service makes the workload serving (same deployment unit,
// not a metrics-only Service) is kube.ServingServices's question.
func (c *Context) SelectingServices(w *manifest.Object) []*manifest.Object {
	// What it reads may share w's namespace: a memo keeps its answer
	// while that namespace is as it was (the reads below record nothing).
	c.readNamespaceOf(w)
	c = c.untracked()
	pt := w.PodTemplate()
	if pt == nil {
		return nil
	}
	var out []*manifest.Object
	for _, s := range c.candidates(&c.services, pt.Meta.Labels) {
		svc, ok := s.Typed().(*corev1.Service)
		if !ok || !c.SameNamespace(s, w) {
			continue
		}
		if MapSelectorMatches(writtenSelector(svc.Spec.Selector), pt.Meta.Labels) {
			out = append(out, s)
		}
	}
	return out
}

// IsSelected reports whether a Service in the run selects the workload's
// pods (see SelectingServices).
func (c *Context) IsSelected(w *manifest.Object) bool { return len(c.SelectingServices(w)) > 0 }

// HPAsFor returns the autoscalers whose scaleTargetRef names w (HPAs, and
// KEDA ScaledObjects, which make one):
// those in w's deployment unit (or a folder above or below it) when there
// are any; otherwise those elsewhere whose namespace is known and equal to
// w's. An HPA of the same name in an unrelated project of the repository
// does not count.
func (c *Context) HPAsFor(w *manifest.Object) []*manifest.Object {
	c.readNamespaceOf(w) // as SelectingServices
	c = c.untracked()
	var near, far []*manifest.Object
	for _, h := range c.hpaTargets[kindName{w.Kind, w.Name}] {
		if !c.SameNamespace(h, w) || !targetsGroup(h, apiGroup(w.APIVersion)) {
			continue
		}
		if RelatedUnits(c.place[h].unit(), c.place[w].unit()) {
			near = append(near, h)
		} else if ns := c.place[w].namespace(); ns != "" && ns == c.place[h].namespace() {
			far = append(far, h)
		}
	}
	if len(near) > 0 {
		return near
	}
	return far
}

// RelatedUnits reports whether two deployment units are the same folder or
// one lies inside the other (a kustomize overlay and its base).
func RelatedUnits(a, b string) bool {
	return a == b || UnderDir(a, b) || UnderDir(b, a) || a == "." || b == "."
}

// UnderDir reports whether path p lies under folder dir: it starts with
// dir + "/" (without building that string on every call).
func UnderDir(p, dir string) bool {
	return len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir)
}

// HPAMinReplicas returns the smallest minReplicas of the HPAs scaling w
// (unset means 1), and whether any HPA scales it.
func (c *Context) HPAMinReplicas(w *manifest.Object) (int32, bool) {
	hs := c.HPAsFor(w)
	if len(hs) == 0 {
		return 0, false
	}
	min := int32(-1)
	for _, h := range hs {
		m := hpaMin(h)
		if min < 0 || m < min {
			min = m
		}
	}
	return min, true
}

// PDBsFor returns the PodDisruptionBudgets whose selector matches the
// workload's pods.
func (c *Context) PDBsFor(w *manifest.Object) []*manifest.Object {
	c.readNamespaceOf(w) // as SelectingServices
	c = c.untracked()
	pt := w.PodTemplate()
	if pt == nil {
		return nil
	}
	var out []*manifest.Object
	for _, p := range c.candidates(&c.pdbs, pt.Meta.Labels) {
		pdb, ok := p.Typed().(*policyv1.PodDisruptionBudget)
		if !ok || !c.SameNamespace(p, w) {
			continue
		}
		if SelectorMatches(pdb.Spec.Selector, pt.Meta.Labels) {
			out = append(out, p)
		}
	}
	return out
}

// WorkloadsSelectedBy returns the workloads whose pod labels sel matches, in
// the namespace of o.
func (c *Context) WorkloadsSelectedBy(o *manifest.Object, sel *metav1.LabelSelector) []*manifest.Object {
	c.readNamespaceOf(o) // as SelectingServices
	c = c.untracked()
	var out []*manifest.Object
	for _, w := range c.selectedCandidates(sel) {
		pt := w.PodTemplate()
		if pt == nil || !c.SameNamespace(o, w) {
			continue
		}
		if SelectorMatches(sel, pt.Meta.Labels) {
			out = append(out, w)
		}
	}
	return out
}

// selectedCandidates returns the workloads sel may select: those carrying
// the rarest of its matchLabels pairs, or every workload when it has none.
func (c *Context) selectedCandidates(sel *metav1.LabelSelector) []*manifest.Object {
	c.readOthers()
	if sel == nil || len(sel.MatchLabels) == 0 {
		return c.workloads
	}
	var best []*manifest.Object
	first := true
	for k, v := range sel.MatchLabels {
		l := c.podLabels[labelPair{k, v}]
		if first || len(l) < len(best) {
			best, first = l, false
		}
	}
	return best
}

// hpaTarget returns the kind and name an HPA or a KEDA ScaledObject scales
// (a ScaledObject's kind defaults to Deployment, as KEDA defaults it).
func hpaTarget(h *manifest.Object) (kind, name string) {
	switch v := h.Typed().(type) {
	case *autoscalingv1.HorizontalPodAutoscaler:
		return v.Spec.ScaleTargetRef.Kind, v.Spec.ScaleTargetRef.Name
	case *autoscalingv2.HorizontalPodAutoscaler:
		return v.Spec.ScaleTargetRef.Kind, v.Spec.ScaleTargetRef.Name
	}
	if IsKEDAScaledObject(h) {
		name, _ = h.Scalar("spec", "scaleTargetRef", "name")
		kind, _ = h.Scalar("spec", "scaleTargetRef", "kind")
		if kind == "" {
			kind = "Deployment"
		}
		return kind, name
	}
	return "", ""
}

// hpaTargetGroup returns the API group of the workload an HPA or a KEDA
// ScaledObject scales, and false when its scaleTargetRef names no
// apiVersion (an HPA's is optional; KEDA's defaults to apps/v1).
func hpaTargetGroup(h *manifest.Object) (string, bool) {
	var v string
	switch t := h.Typed().(type) {
	case *autoscalingv1.HorizontalPodAutoscaler:
		v = t.Spec.ScaleTargetRef.APIVersion
	case *autoscalingv2.HorizontalPodAutoscaler:
		v = t.Spec.ScaleTargetRef.APIVersion
	default:
		if !IsKEDAScaledObject(h) {
			return "", false
		}
		v, _ = h.Scalar("spec", "scaleTargetRef", "apiVersion")
		if v == "" {
			v = "apps/v1"
		}
	}
	if v == "" {
		return "", false
	}
	return apiGroup(v), true
}

// targetsGroup reports whether autoscaler h may scale a workload of API
// group group: its scaleTargetRef names that group, or none. An OpenKruise
// StatefulSet (apps.kruise.io) is not the target of an HPA that scales an
// apps/v1 StatefulSet of the same name.
func targetsGroup(h *manifest.Object, group string) bool {
	ref, named := hpaTargetGroup(h)
	return !named || ref == group
}

// hpaMin returns an HPA's minReplicas (unset means 1), or a KEDA
// ScaledObject's minReplicaCount (unset means 0: KEDA scales to zero).
func hpaMin(h *manifest.Object) int32 {
	var m *int32
	switch v := h.Typed().(type) {
	case *autoscalingv1.HorizontalPodAutoscaler:
		m = v.Spec.MinReplicas
	case *autoscalingv2.HorizontalPodAutoscaler:
		m = v.Spec.MinReplicas
	default:
		if IsKEDAScaledObject(h) {
			s, _ := h.Scalar("spec", "minReplicaCount")
			n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
			if err != nil || n < 0 {
				return 0
			}
			return int32(n)
		}
	}
	if m == nil {
		return 1
	}
	return *m
}

// HPATarget returns the kind and name an HPA or a KEDA ScaledObject scales
// ("" when obj is neither).
func HPATarget(h *manifest.Object) (kind, name string) { return hpaTarget(h) }

// HPAMin returns an HPA object's minReplicas (unset means 1), or a KEDA
// ScaledObject's minReplicaCount (unset means 0).
func HPAMin(h *manifest.Object) int32 { return hpaMin(h) }

// Rule returns the rule of the run's catalog with id, or nil: a rule that
// needs another rule's answer (what its fix would set) asks for it by id.
func (c *Context) Rule(id string) *Rule { return c.Config.catalog.Lookup(id) }

// DropTypedValues lets go the typed values of files' objects that a
// run's Context does not read of every object (all but Services,
// PodDisruptionBudgets and HorizontalPodAutoscalers: indexedByContext),
// where the packed tree can make them again (manifest.Object.DropTyped):
// for a cache that keeps parsed files from run to run, whose next run
// recalls most objects' findings (Memo) and reads few typed values; a rule
// that reads one decodes it again. At 50,000 objects the typed values were
// about 70 MiB of a review cache's 330.
func DropTypedValues(files []*manifest.File) {
	for _, f := range files {
		for _, o := range f.Objects {
			if !indexedByContext(o) {
				o.DropTyped()
			}
		}
	}
}
