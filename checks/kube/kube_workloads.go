package kube

import (
	"path"
	"strings"

	"github.com/prodready/prodready/checks"

	"github.com/prodready/prodready/checks/manifest"
	yaml "go.yaml.in/yaml/v3"
)

// WholePodTemplate returns the pod template of a whole workload, or nil for
// anything else: kustomize patches are partial objects, and judging what
// they leave out gives false alarms. A patch is marked by the parser, named
// as a patch by a kustomization of the run, or shows itself by lacking what
// the API server requires of a pod (a container, each with an image).
func WholePodTemplate(ctx *checks.Context, obj *manifest.Object) *manifest.PodTemplate {
	pt := obj.PodTemplate() // first: cached on the object, and nil for most kinds
	if pt == nil || len(pt.Spec.Containers) == 0 || obj.Patch || obj.Templated || isPatchFile(ctx, obj) {
		return nil
	}
	for _, c := range pt.AllContainers() {
		if c.Image == "" {
			return nil
		}
	}
	return pt
}

// PodCheck checks pt, the pod template of the whole workload obj.
type PodCheck func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding

// OnWholePods returns a rule's Check that calls check with the pod template
// of each whole workload (see WholePodTemplate) and finds nothing on any
// other object.
func OnWholePods(check PodCheck) func(*checks.Context, *manifest.Object) []checks.Finding {
	return func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		pt := WholePodTemplate(ctx, obj)
		if pt == nil {
			return nil
		}
		return check(ctx, obj, pt)
	}
}

// OnPodTemplates returns a rule's Check that calls check with the pod
// template of each object that has one, whole or partial, and finds
// nothing on any other object.
func OnPodTemplates(check PodCheck) func(*checks.Context, *manifest.Object) []checks.Finding {
	return func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		pt := obj.PodTemplate()
		if pt == nil {
			return nil
		}
		return check(ctx, obj, pt)
	}
}

// OnPodTemplatesSkippingPatches is OnPodTemplates but for the objects the
// parser marks as kustomize patches (manifest.Object.Patch).
func OnPodTemplatesSkippingPatches(check PodCheck) func(*checks.Context, *manifest.Object) []checks.Finding {
	return OnPodTemplates(func(ctx *checks.Context, obj *manifest.Object, pt *manifest.PodTemplate) []checks.Finding {
		if obj.Patch {
			return nil
		}
		return check(ctx, obj, pt)
	})
}

// isPatchFile reports whether obj's file is one its run's
// kustomizations name as a patch (patchesStrategicMerge, patches[].path).
// Those documents are partial objects: judging them as whole workloads
// gives false alarms. The set is built once per run.
func isPatchFile(ctx *checks.Context, obj *manifest.Object) bool {
	if ctx == nil || obj.File == nil {
		return false
	}
	return ctx.Fact(patchFileFact, obj) == "patch"
}

// patchFileFact is isPatchFile's answer as a fact about the object: a
// rule that asks it of the object it checks still reads only that object
// (checks.Memo), as long as the answer stays the same.
var patchFileFact = checks.NewObjectFact(func(ctx *checks.Context, obj *manifest.Object) string {
	idx := patchFiles.Of(ctx)
	patch, ok := idx.files[obj.File]
	if !ok {
		patch = idx.paths[path.Clean(obj.File.Path)]
	}
	if patch {
		return "patch"
	}
	return ""
})

// patchFiles is the run's patchIndex.
var patchFiles = checks.NewIndex(buildPatchIndex)

// patchIndex holds the paths the run's kustomizations name as patches,
// and the answer for each file of the run: rules ask for every container
// of every object, so a file's path is cleaned and looked up once.
type patchIndex struct {
	paths map[string]bool
	files map[*manifest.File]bool
}

func buildPatchIndex(ctx *checks.Context) *patchIndex {
	out := map[string]bool{}
	for _, k := range ctx.Objects() {
		base := path.Base(k.File.Path)
		named := base == "kustomization.yaml" || base == "kustomization.yml" || base == "Kustomization"
		if !checks.IsKustomization(k) && !named {
			continue // Components (kind: Component) name patches too
		}
		dir := path.Dir(k.File.Path)
		add := func(p string) {
			if p != "" && !strings.Contains(p, "\n") {
				out[path.Clean(path.Join(dir, p))] = true
			}
		}
		for _, key := range []string{"patchesStrategicMerge", "patches", "patchesJson6902"} {
			n := k.Node(key)
			if n == nil {
				continue
			}
			for _, item := range n.Content {
				if item.Kind == yaml.ScalarNode {
					add(item.Value)
					continue
				}
				if _, p := manifest.MapEntry(item, "path"); p != nil {
					add(p.Value)
				}
			}
		}
	}
	idx := &patchIndex{paths: out, files: map[*manifest.File]bool{}}
	for _, o := range ctx.Objects() {
		if o.File != nil {
			idx.files[o.File] = out[path.Clean(o.File.Path)]
		}
	}
	return idx
}

// NamespaceWorkloads returns the whole workloads whose effective
// namespace is ns.
func NamespaceWorkloads(ctx *checks.Context, ns string) []*manifest.Object {
	var out []*manifest.Object
	for _, o := range ctx.Workloads() {
		if ctx.Namespace(o) == ns && WholePodTemplate(ctx, o) != nil {
			out = append(out, o)
		}
	}
	return out
}

// patchesFor returns the kustomize patch documents of the run that
// target obj (same kind and name): the rendered object gets what they set.
func patchesFor(ctx *checks.Context, obj *manifest.Object) []*manifest.Object {
	var out []*manifest.Object
	for _, p := range ctx.ByKindName(obj.Kind, obj.Name) {
		// No namespace test: an overlay's namespace replaces its base's.
		if p == obj {
			continue
		}
		if p.Patch || isPatchFile(ctx, p) || (p.PodTemplate() != nil && WholePodTemplate(ctx, p) == nil) {
			out = append(out, p)
		}
	}
	return out
}

// PatchSets reports whether a patch of obj sets key in the container
// named container, or in the pod spec when container is "".
func PatchSets(ctx *checks.Context, obj *manifest.Object, container, key string) bool {
	for _, p := range patchesFor(ctx, obj) {
		for _, spec := range []manifest.Path{{"spec", "template", "spec"}, {"spec", "jobTemplate", "spec", "template", "spec"}, {"spec"}} {
			if container == "" {
				if k, _ := manifest.MapEntry(p.Node(spec...), key); k != nil {
					return true
				}
				continue
			}
			for _, list := range []string{"containers", "initContainers"} {
				n := p.Node(spec.Child(list)...)
				if n == nil {
					continue
				}
				for _, item := range n.Content {
					if _, name := manifest.MapEntry(item, "name"); name != nil && name.Value == container {
						if k, _ := manifest.MapEntry(item, key); k != nil {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// rolloutRefs is the run's Argo Rollouts that take their pod template from
// a Deployment through spec.workloadRef, both ways.
type rolloutRefs struct {
	target     map[*manifest.Object]*manifest.Object // Rollout → Deployment
	referenced map[*manifest.Object]*manifest.Object // Deployment → Rollout
}

var rolloutRefIndex = checks.NewTrackedIndex(func(ctx *checks.Context) *rolloutRefs {
	out := &rolloutRefs{target: map[*manifest.Object]*manifest.Object{}, referenced: map[*manifest.Object]*manifest.Object{}}
	for _, o := range ctx.ByKind("Rollout") {
		r := o.Rollout()
		if r == nil || r.Spec.Template != nil || r.Spec.WorkloadRef == nil || r.Spec.WorkloadRef.Name == "" {
			continue
		}
		ref := r.Spec.WorkloadRef
		kind := ref.Kind
		if kind == "" {
			kind = "Deployment"
		}
		var named []*manifest.Object
		for _, d := range ctx.ByKindName(kind, ref.Name) {
			if d.PodTemplate() != nil && !d.Patch && ctx.SameNamespace(o, d) {
				named = append(named, d)
			}
		}
		if s := Scoped(ctx, o, named); len(s) > 0 {
			out.target[o] = s[0]
			if _, taken := out.referenced[s[0]]; !taken {
				out.referenced[s[0]] = o
			}
		}
	}
	return out
})

// PodSource returns the object whose pod template w's pods are made from:
// for an Argo Rollout with spec.workloadRef, the Deployment it names (in
// its deployment unit, else its namespace; nil when the run has none), and
// w itself for every other object.
func PodSource(ctx *checks.Context, w *manifest.Object) *manifest.Object {
	if r := w.Rollout(); r == nil || r.Spec.Template != nil || r.Spec.WorkloadRef == nil {
		return w
	}
	return rolloutRefIndex.Of(ctx).target[w]
}

// ReferencingRollout returns the Argo Rollout whose spec.workloadRef names
// d, or nil. Such a Deployment's template is the Rollout's, but its pods
// are the Rollout's to run: its own replicas (0, or scaled down by Argo)
// do not say how many run.
func ReferencingRollout(ctx *checks.Context, d *manifest.Object) *manifest.Object {
	if d.Kind != "Deployment" && d.Kind != "ReplicaSet" {
		return nil
	}
	return rolloutRefIndex.Of(ctx).referenced[d]
}
