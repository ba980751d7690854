package checks

import (
	"fmt"
	"path"
	"slices"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

const sectionResources = "4. Resources"

// resContainerAfter is where a person puts a container's resources block.
var resContainerAfter = []string{"name", "image", "imagePullPolicy", "command", "args", "workingDir", "ports", "envFrom", "env"}

// resPodTemplate returns the pod template of a whole workload, or nil for
// anything else: kustomize patches are partial objects, and judging what
// they leave out gives false alarms. A patch is marked by the parser, named
// as a patch by a kustomization of the run, or shows itself by lacking what
// the API server requires of a pod (a container, each with an image).
func resPodTemplate(ctx *Context, obj *manifest.Object) *manifest.PodTemplate {
	pt := obj.PodTemplate() // first: cached on the object, and nil for most kinds
	if pt == nil || len(pt.Spec.Containers) == 0 || obj.Patch || obj.Templated || resIsPatchFile(ctx, obj) {
		return nil
	}
	for _, c := range pt.AllContainers() {
		if c.Image == "" {
			return nil
		}
	}
	return pt
}

// resIsPatchFile reports whether obj's file is one its run's
// kustomizations name as a patch (patchesStrategicMerge, patches[].path).
// Those documents are partial objects: judging them as whole workloads
// gives false alarms. The set is built once per run.
func resIsPatchFile(ctx *Context, obj *manifest.Object) bool {
	if ctx == nil || obj.File == nil {
		return false
	}
	idx := ctx.Memo("resPatchFiles", func() any { return resBuildPatchIndex(ctx) }).(*resPatchIndex)
	if patch, ok := idx.files[obj.File]; ok {
		return patch
	}
	return idx.paths[path.Clean(obj.File.Path)]
}

// resPatchIndex holds the paths the run's kustomizations name as patches,
// and the answer for each file of the run: rules ask for every container
// of every object, so a file's path is cleaned and looked up once.
type resPatchIndex struct {
	paths map[string]bool
	files map[*manifest.File]bool
}

func resBuildPatchIndex(ctx *Context) *resPatchIndex {
	out := map[string]bool{}
	for _, k := range ctx.Objects {
		base := path.Base(k.File.Path)
		named := base == "kustomization.yaml" || base == "kustomization.yml" || base == "Kustomization"
		if !isKustomization(k) && !named {
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
	idx := &resPatchIndex{paths: out, files: map[*manifest.File]bool{}}
	for _, o := range ctx.Objects {
		if o.File != nil {
			idx.files[o.File] = out[path.Clean(o.File.Path)]
		}
	}
	return idx
}

// resAmount returns the quantity of resource name in list, and whether it is set.
func resAmount(list corev1.ResourceList, name corev1.ResourceName) (resource.Quantity, bool) {
	q, ok := list[name]
	return q, ok
}

// resLimitRangeDefaults reports whether a LimitRange that may apply to the
// object's namespace gives containers a default request or a default limit
// for resource name. A default limit also defaults the request.
func resLimitRangeDefaults(ctx *Context, obj *manifest.Object, name corev1.ResourceName) (request, limit bool) {
	for _, lo := range ctx.ByKind("LimitRange") {
		lr, ok := lo.Typed.(*corev1.LimitRange)
		if !ok || !resSameNamespace(ctx, lo, obj) {
			continue
		}
		for _, item := range lr.Spec.Limits {
			if item.Type != corev1.LimitTypeContainer {
				continue
			}
			if _, ok := item.Default[name]; ok {
				request, limit = true, true
			}
			if _, ok := item.DefaultRequest[name]; ok {
				request = true
			}
		}
	}
	return request, limit
}

// resSameNamespace is SameNamespace, but two objects that both have no known
// namespace must also share a deployment unit: a LimitRange in one app's
// folder does not apply to another app.
func resSameNamespace(ctx *Context, a, b *manifest.Object) bool {
	na, nb := ctx.Namespace(a), ctx.Namespace(b)
	if na == "" && nb == "" {
		return ctx.Unit(a) == ctx.Unit(b)
	}
	return ctx.SameNamespace(a, b)
}

// resSet is a Set op at the full path whose After hints fit the first key
// of the path that does not exist yet (the one the edit inserts).
func resSet(obj *manifest.Object, p manifest.Path, value, comment string) edit.Op {
	op := SetOp(p, value, resAfterFor(obj, p)...)
	op.Comment = comment
	return op
}

// resAppend is an Append op with After hints for a sequence it may create.
func resAppend(obj *manifest.Object, p manifest.Path, value string) edit.Op {
	op := AppendOp(p, value)
	op.After = resAfterFor(obj, p)
	return op
}

// resAfterFor picks sibling hints for the first missing key of p.
func resAfterFor(obj *manifest.Object, p manifest.Path) []string {
	for i := 1; i <= len(p); i++ {
		if obj.Has(p[:i]...) {
			continue
		}
		parent := ""
		if i >= 2 {
			parent = p[i-2]
		}
		return resAfterHints(parent, p[i-1])
	}
	return nil
}

// resAfterHints returns where a person puts key under parent: the sibling
// keys it goes after. The slices are shared by every finding that uses
// them (thousands on a large repository): edits only read them.
func resAfterHints(parent, key string) []string {
	inContainer := parent != "" && parent[0] >= '0' && parent[0] <= '9'
	switch {
	case inContainer && key == "resources":
		return resContainerAfter
	case inContainer && key == "securityContext":
		return resContainerSecurityContextAfter
	case inContainer && key == "volumeMounts":
		return resContainerVolumeMountsAfter
	case key == "limits":
		return resLimitsAfter
	case parent == "spec" && key == "securityContext":
		return resPodSecurityContextAfter
	case parent == "spec" && key == "automountServiceAccountToken":
		return resAutomountAfter
	case parent == "spec" && key == "volumes":
		return resVolumesAfter
	case parent == "metadata" && key == "labels":
		return resLabelsAfter
	}
	return nil
}

// The After hints of resAfterHints besides resContainerAfter.
var (
	resContainerSecurityContextAfter = slices.Concat(resContainerAfter, []string{"resources", "volumeMounts", "livenessProbe", "readinessProbe", "startupProbe", "lifecycle"})
	resContainerVolumeMountsAfter    = slices.Concat(resContainerAfter, []string{"resources"})
	resLimitsAfter                   = []string{"requests"}
	resPodSecurityContextAfter       = []string{"serviceAccountName", "serviceAccount", "automountServiceAccountToken", "priorityClassName", "hostNetwork", "hostPID", "hostIPC", "dnsPolicy", "restartPolicy", "terminationGracePeriodSeconds"}
	resAutomountAfter                = []string{"serviceAccountName", "serviceAccount"}
	resVolumesAfter                  = []string{"initContainers", "containers"}
	resLabelsAfter                   = []string{"name", "namespace"}
)

// resQtyText returns the text of the quantity node at p, or the canonical
// form of q when the node is not a plain scalar.
func resQtyText(obj *manifest.Object, p manifest.Path, q resource.Quantity) string {
	if v, ok := obj.Scalar(p...); ok && v != "" {
		if _, err := resource.ParseQuantity(v); err == nil {
			return v
		}
	}
	return q.String()
}

// resNamespaceWorkloads returns the whole workloads whose effective
// namespace is ns.
func resNamespaceWorkloads(ctx *Context, ns string) []*manifest.Object {
	var out []*manifest.Object
	for _, o := range ctx.Workloads() {
		if ctx.Namespace(o) == ns && resPodTemplate(ctx, o) != nil {
			out = append(out, o)
		}
	}
	return out
}

// resNamespacePolicyCheck is the body of namespace-limitrange-missing and
// namespace-resourcequota-missing: a Namespace of the repo with workloads
// and no object of kind in it.
func resNamespacePolicyCheck(ctx *Context, obj *manifest.Object, kind, what string) []Finding {
	if _, ok := obj.Typed.(*corev1.Namespace); !ok || obj.Name == "" {
		return nil
	}
	ws := resNamespaceWorkloads(ctx, obj.Name)
	if len(ws) == 0 {
		return nil
	}
	for _, o := range ctx.ByKind(kind) {
		// One with no known namespace may be this namespace's when it sits
		// in the Namespace's deployment unit.
		if ns := ctx.Namespace(o); ns == obj.Name || (ns == "" && ctx.Unit(o) == ctx.Unit(obj)) {
			return nil
		}
	}
	return []Finding{At(obj, nil, fmt.Sprintf("namespace %q holds %d workload(s) in the repo but no %s: %s", obj.Name, len(ws), kind, what))}
}

// resStringsParam reads a list-of-strings parameter of rule id from the
// config, falling back to def. (Config.StringsParam looks the default up in
// the registry, which a rule's own Check cannot refer to without an
// initialization cycle.)
func resStringsParam(cfg *Config, id, name string, def []string) []string {
	if cfg == nil {
		return def
	}
	v, ok := cfg.Rules[id].Params[name]
	if !ok {
		return def
	}
	switch v := v.(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			out = append(out, fmt.Sprint(e))
		}
		return out
	case string:
		if v == "" {
			return nil
		}
		return []string{v}
	}
	return def
}

// resPatchesFor returns the kustomize patch documents of the run that
// target obj (same kind and name): the rendered object gets what they set.
func resPatchesFor(ctx *Context, obj *manifest.Object) []*manifest.Object {
	var out []*manifest.Object
	for _, p := range ctx.ByKindName(obj.Kind, obj.Name) {
		// No namespace test: an overlay's namespace replaces its base's.
		if p == obj {
			continue
		}
		if p.Patch || resIsPatchFile(ctx, p) || (p.PodTemplate() != nil && resPodTemplate(ctx, p) == nil) {
			out = append(out, p)
		}
	}
	return out
}

// resPatchSets reports whether a patch of obj sets key in the container
// named container, or in the pod spec when container is "".
func resPatchSets(ctx *Context, obj *manifest.Object, container, key string) bool {
	for _, p := range resPatchesFor(ctx, obj) {
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

// resPodLevel reports whether the pod-level resources (spec.resources) set a
// request or limit for name: the pod's budget then covers containers that
// set none.
func resPodLevel(pt *manifest.PodTemplate, name corev1.ResourceName) bool {
	if pt.Spec.Resources == nil {
		return false
	}
	_, req := pt.Spec.Resources.Requests[name]
	_, lim := pt.Spec.Resources.Limits[name]
	return req || lim
}
