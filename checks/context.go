package checks

import (
	"path"
	"strings"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/prodready/prodready/checks/manifest"
)

// Context is what a rule sees besides its own object: every object of the
// run (all files given, so a PDB in another file counts), indexes built once,
// and the configuration.
type Context struct {
	Config  *Config
	Objects []*manifest.Object

	byKind    map[string][]*manifest.Object
	namespace map[*manifest.Object]string
	unit      map[*manifest.Object]string
	// kustomizeImages holds image names that a kustomization's images:
	// overrides (their tags in manifests are placeholders).
	kustomizeImages map[string]bool
	// hpaTargets maps "Kind/name" to the HPAs that scale it.
	hpaTargets map[string][]*manifest.Object
}

// NewContext indexes objects for the rules.
func NewContext(cfg *Config, objects []*manifest.Object) *Context {
	if cfg == nil {
		cfg = DefaultConfig()
	}
	c := &Context{
		Config:          cfg,
		Objects:         objects,
		byKind:          map[string][]*manifest.Object{},
		namespace:       map[*manifest.Object]string{},
		unit:            map[*manifest.Object]string{},
		kustomizeImages: map[string]bool{},
		hpaTargets:      map[string][]*manifest.Object{},
	}
	kustomizations := map[string]*manifest.Object{} // folder → kustomization
	for _, o := range objects {
		c.byKind[o.Kind] = append(c.byKind[o.Kind], o)
		if isKustomization(o) {
			kustomizations[path.Dir(o.File.Path)] = o
			c.collectKustomizeImages(o)
		}
	}
	for _, o := range objects {
		dir := path.Dir(o.File.Path)
		unitDir, ns := dir, o.Namespace
		for d := dir; ; d = path.Dir(d) {
			if k, ok := kustomizations[d]; ok {
				unitDir = d
				if ns == "" {
					ns, _ = k.Scalar("namespace")
				}
				break
			}
			if d == "." || d == "/" || d == path.Dir(d) {
				break
			}
		}
		c.unit[o] = unitDir
		c.namespace[o] = ns
	}
	for _, h := range c.byKind["HorizontalPodAutoscaler"] {
		kind, name := hpaTarget(h)
		if name != "" {
			c.hpaTargets[kind+"/"+name] = append(c.hpaTargets[kind+"/"+name], h)
		}
	}
	return c
}

func isKustomization(o *manifest.Object) bool {
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
			c.kustomizeImages[v.Value] = true
		}
	}
}

// ByKind returns every object of kind, in run order.
func (c *Context) ByKind(kind string) []*manifest.Object { return c.byKind[kind] }

// Namespace returns the object's effective namespace: metadata.namespace,
// else the enclosing kustomization's namespace, else "" (unknown: it
// matches any namespace).
func (c *Context) Namespace(o *manifest.Object) string { return c.namespace[o] }

// SameNamespace reports whether a and b may live in one namespace: equal,
// or either unknown.
func (c *Context) SameNamespace(a, b *manifest.Object) bool {
	na, nb := c.namespace[a], c.namespace[b]
	return na == "" || nb == "" || na == nb
}

// Unit returns the object's deployment unit: the folder of the nearest
// enclosing kustomization, else the object's own folder.
func (c *Context) Unit(o *manifest.Object) string { return c.unit[o] }

// KustomizeOverridesImage reports whether a kustomization in the run
// rewrites image name (so its tag in a manifest is a placeholder).
func (c *Context) KustomizeOverridesImage(name string) bool { return c.kustomizeImages[name] }

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
	return labels.SelectorFromSet(sel).Matches(labels.Set(lbls))
}

// ServicesFor returns the Services that select a workload's pods.
func (c *Context) ServicesFor(w *manifest.Object) []*manifest.Object {
	pt := w.PodTemplate()
	if pt == nil {
		return nil
	}
	var out []*manifest.Object
	for _, s := range c.byKind["Service"] {
		svc, ok := s.Typed.(*corev1.Service)
		if !ok || !c.SameNamespace(s, w) {
			continue
		}
		if MapSelectorMatches(svc.Spec.Selector, pt.Meta.Labels) {
			out = append(out, s)
		}
	}
	return out
}

// IsServing reports whether a Service in the run selects the workload's pods.
func (c *Context) IsServing(w *manifest.Object) bool { return len(c.ServicesFor(w)) > 0 }

// HPAsFor returns the HorizontalPodAutoscalers whose scaleTargetRef names w:
// those in w's deployment unit (or a folder above or below it) when there
// are any; otherwise those elsewhere whose namespace is known and equal to
// w's. An HPA of the same name in an unrelated project of the repository
// does not count.
func (c *Context) HPAsFor(w *manifest.Object) []*manifest.Object {
	var near, far []*manifest.Object
	for _, h := range c.hpaTargets[w.Kind+"/"+w.Name] {
		if !c.SameNamespace(h, w) {
			continue
		}
		if RelatedUnits(c.unit[h], c.unit[w]) {
			near = append(near, h)
		} else if ns := c.namespace[w]; ns != "" && ns == c.namespace[h] {
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
	return a == b || strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/") || a == "." || b == "."
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
	pt := w.PodTemplate()
	if pt == nil {
		return nil
	}
	var out []*manifest.Object
	for _, p := range c.byKind["PodDisruptionBudget"] {
		pdb, ok := p.Typed.(*policyv1.PodDisruptionBudget)
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
	var out []*manifest.Object
	for _, w := range c.Objects {
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

// hpaTarget returns the kind and name an HPA scales.
func hpaTarget(h *manifest.Object) (kind, name string) {
	switch v := h.Typed.(type) {
	case *autoscalingv1.HorizontalPodAutoscaler:
		return v.Spec.ScaleTargetRef.Kind, v.Spec.ScaleTargetRef.Name
	case *autoscalingv2.HorizontalPodAutoscaler:
		return v.Spec.ScaleTargetRef.Kind, v.Spec.ScaleTargetRef.Name
	}
	return "", ""
}

// hpaMin returns an HPA's minReplicas (unset means 1).
func hpaMin(h *manifest.Object) int32 {
	var m *int32
	switch v := h.Typed.(type) {
	case *autoscalingv1.HorizontalPodAutoscaler:
		m = v.Spec.MinReplicas
	case *autoscalingv2.HorizontalPodAutoscaler:
		m = v.Spec.MinReplicas
	}
	if m == nil {
		return 1
	}
	return *m
}

// HPATarget returns the kind and name an HPA object scales ("" when obj is
// not an HPA).
func HPATarget(h *manifest.Object) (kind, name string) { return hpaTarget(h) }

// HPAMin returns an HPA object's minReplicas (unset means 1).
func HPAMin(h *manifest.Object) int32 { return hpaMin(h) }
