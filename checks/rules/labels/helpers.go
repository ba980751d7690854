package labels

import (
	"path"
	"sort"
	"strings"

	"github.com/prodready/prodready/checks"

	yaml "go.yaml.in/yaml/v3"
	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/prodready/prodready/checks/manifest"
)

// kustomize knows which labels kustomizations add to the objects they
// include: commonLabels, and `labels:` entries (on templates only with
// includeTemplates or includeSelectors).
type kustomize struct {
	// meta and template map a file path to the labels that some
	// kustomization including it (directly or through other
	// kustomizations) adds to metadata and to pod templates.
	meta, template map[string]map[string]string
}

// kustomizeIndex is the run's kustomization label index.
var kustomizeIndex = checks.NewTrackedIndex(buildKustomize)

type kust struct {
	dir            string
	meta, template map[string]string
	files          []string // resource files it includes
	dirs           []string // folders (other kustomizations) it includes
}

func buildKustomize(ctx *checks.Context) *kustomize {
	var ks []*kust
	byDir := map[string][]*kust{}
	for _, o := range ctx.Kustomizations() {
		k := &kust{dir: path.Dir(o.File.Path), meta: map[string]string{}, template: map[string]string{}}
		for key, v := range stringMap(o.Node("commonLabels")) {
			k.meta[key], k.template[key] = v, v
		}
		if ls := o.Node("labels"); ls != nil && ls.Kind == yaml.SequenceNode {
			for _, item := range ls.Content {
				_, pairs := manifest.MapEntry(item, "pairs")
				_, tpl := manifest.MapEntry(item, "includeTemplates")
				_, sel := manifest.MapEntry(item, "includeSelectors")
				inTpl := (tpl != nil && tpl.Value == "true") || (sel != nil && sel.Value == "true")
				for key, v := range stringMap(pairs) {
					k.meta[key] = v
					if inTpl {
						k.template[key] = v
					}
				}
			}
		}
		for _, field := range []string{"resources", "bases", "components"} {
			n := o.Node(field)
			if n == nil || n.Kind != yaml.SequenceNode {
				continue
			}
			for _, e := range n.Content {
				if e.Kind != yaml.ScalarNode || strings.Contains(e.Value, "://") {
					continue
				}
				p := path.Clean(path.Join(k.dir, e.Value))
				if strings.HasSuffix(p, ".yaml") || strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".json") {
					k.files = append(k.files, p)
				} else {
					k.dirs = append(k.dirs, p)
				}
			}
		}
		ks = append(ks, k)
		byDir[k.dir] = append(byDir[k.dir], k)
	}
	// parents[k] = kustomizations that include k's folder.
	parents := map[*kust][]*kust{}
	for _, k := range ks {
		for _, d := range k.dirs {
			for _, child := range byDir[d] {
				parents[child] = append(parents[child], k)
			}
		}
	}
	idx := &kustomize{meta: map[string]map[string]string{}, template: map[string]map[string]string{}}
	add := func(dst map[string]map[string]string, file string, src map[string]string) {
		if len(src) == 0 {
			return
		}
		if dst[file] == nil {
			dst[file] = map[string]string{}
		}
		for key, v := range src {
			dst[file][key] = v
		}
	}
	for _, k := range ks {
		// Every kustomization above k (k itself included) adds its labels
		// to k's files.
		seen := map[*kust]bool{}
		var above []*kust
		queue := []*kust{k}
		for len(queue) > 0 {
			q := queue[0]
			queue = queue[1:]
			if seen[q] {
				continue
			}
			seen[q] = true
			above = append(above, q)
			queue = append(queue, parents[q]...)
		}
		for _, f := range k.files {
			for _, a := range above {
				add(idx.meta, f, a.meta)
				add(idx.template, f, a.template)
			}
		}
	}
	return idx
}

// stringMap reads a mapping of scalars.
func stringMap(n *yaml.Node) map[string]string {
	out := map[string]string{}
	if n == nil || n.Kind != yaml.MappingNode {
		return out
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if v := n.Content[i+1]; v.Kind == yaml.ScalarNode {
			out[n.Content[i].Value] = v.Value
		}
	}
	return out
}

// templateLabels returns the labels a workload's pods get: the template's
// own plus those kustomizations add to templates.
func templateLabels(ctx *checks.Context, obj *manifest.Object) map[string]string {
	out := map[string]string{}
	if pt := obj.PodTemplate(); pt != nil {
		for k, v := range pt.Meta.Labels {
			out[k] = v
		}
	}
	for k, v := range kustomizeIndex.Of(ctx).template[obj.File.Path] {
		out[k] = v
	}
	return out
}

// objectLabels returns an object's labels: its own plus those
// kustomizations add to metadata.
func objectLabels(ctx *checks.Context, obj *manifest.Object) map[string]string {
	out := map[string]string{}
	for k, v := range obj.Labels {
		out[k] = v
	}
	for k, v := range kustomizeIndex.Of(ctx).meta[obj.File.Path] {
		out[k] = v
	}
	return out
}

// validValue reports whether v is a valid label value.
func validValue(v string) bool { return len(validation.IsValidLabelValue(v)) == 0 }

// sorted returns the keys of m in order.
func sorted(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// isK8sObject reports whether obj is a whole Kubernetes object (not a
// kustomization, a patch or a values file).
func isK8sObject(obj *manifest.Object) bool {
	return !obj.Patch && obj.Kind != "" && obj.APIVersion != "" && obj.Name != "" && !checks.IsKustomization(obj) &&
		!strings.HasPrefix(obj.APIVersion, "kustomize.config.k8s.io/")
}

// templateImmutable reports whether the object's pod template cannot be
// changed once created: a Job's spec.template is immutable, so a fix that
// edits it would be rejected when applied to the existing Job.
func templateImmutable(obj *manifest.Object) bool {
	_, job := obj.Typed().(*batchv1.Job)
	return job
}
