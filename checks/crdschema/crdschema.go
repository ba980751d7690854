// Package crdschema validates the custom resources of a run against the
// CustomResourceDefinitions of the same run (plain files, charts' crds/
// and templates, built overlays) as the API server validates them on
// create: unknown fields (x-kubernetes-preserve-unknown-fields honoured),
// defaults applied, then the OpenAPI schema (types, enum, formats,
// minimum and maximum, required, patterns) and the x-kubernetes-validations
// CEL rules with their messages and field paths, at the field's line. A
// custom resource whose CRD is not in the run is said, not passed.
package crdschema

import (
	"context"
	"fmt"
	"sort"
	"strings"

	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"
	"github.com/prodready/prodready/checks/manifest"
)

// RuleID is the rule of a custom resource the API server would refuse.
const RuleID = "crd-schema"

// Rules returns the package's rule.
func Rules() []*checks.Rule { return []*checks.Rule{rule} }

var rule = &checks.Rule{
	ID: RuleID, Section: "10. API versions and cluster configuration", Severity: checks.Error,
	Ref: "https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#validation",
	Why: "a custom resource that its CustomResourceDefinition in the repository refuses (unknown field, wrong type, enum, format, minimum or maximum, required, an x-kubernetes-validations rule): the API server rejects it",
	Help: "The CRD is read from the same run (plain files, a chart's crds/ and templates, a built overlay, or the files `crds:` in .prodready.yaml names). " +
		"Defaults are applied before the rules, as the API server applies them. A custom resource whose CRD is not in the run is listed as not validated, with its kind; " +
		"one whose CRD is in the run but cannot be read (its YAML is broken) gets an info finding that names that CRD and the error.",
	Check:     check,
	Unchecked: unchecked,
}

// check validates one custom resource against its CRD, when the run has it.
func check(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
	if !IsCustomResource(obj) {
		return nil
	}
	def := Definitions.Of(ctx).Lookup(obj)
	if def == nil {
		return nil // unchecked lists it
	}
	about := fmt.Sprintf("CustomResourceDefinition %s %s", def.Object.Name, kube.WrittenAt(def.Object))
	if def.Err != nil {
		f := checks.At(obj, nil, fmt.Sprintf("%s is not validated: its CRD cannot be read: %v (%s)", obj.Kind, def.Err, about))
		return []checks.Finding{f.WithSeverity(checks.Info)}
	}
	_, version, _ := strings.Cut(obj.APIVersion, "/")
	v := def.validating(version)
	switch {
	case v == nil:
		return []checks.Finding{checks.At(obj, manifest.Path{"apiVersion"}, fmt.Sprintf("the CRD defines no version %s of %s (it has %s): the API server refuses it (%s)", version, obj.Kind, strings.Join(def.Versions(), ", "), about))}
	case !v.Served:
		return []checks.Finding{checks.At(obj, manifest.Path{"apiVersion"}, fmt.Sprintf("version %s of %s is not served (served: false in the CRD): the API server refuses it (%s)", version, obj.Kind, about))}
	case v.Err != nil:
		f := checks.At(obj, nil, fmt.Sprintf("%s is not validated: the CRD's schema for %s cannot be used: %v (%s)", obj.Kind, version, v.Err, about))
		return []checks.Finding{f.WithSeverity(checks.Info)}
	case v.Structural == nil:
		return nil // no schema: anything goes
	}
	u, err := kube.Unstructured(obj)
	if err != nil {
		return nil // the document is not JSON-shaped: yaml-invalid says so
	}
	var out []checks.Finding
	for _, e := range v.Validate(context.Background(), u) {
		out = append(out, checks.At(obj, fieldPath(e.Field), e.Message+" ("+about+")"))
	}
	return out
}

// unchecked lists, by file, the custom resources the run has no CRD for.
func unchecked(ctx *checks.Context) []checks.Unchecked {
	defs := Definitions.Of(ctx)
	type fileKinds struct {
		first  *manifest.Object
		counts map[string]int
	}
	var order []string
	byFile := map[string]*fileKinds{}
	for _, o := range ctx.Objects() {
		if !IsCustomResource(o) || defs.Lookup(o) != nil {
			continue
		}
		fk := byFile[o.File.Path]
		if fk == nil {
			fk = &fileKinds{first: o, counts: map[string]int{}}
			byFile[o.File.Path] = fk
			order = append(order, o.File.Path)
		}
		fk.counts[o.Kind+" ("+o.APIVersion+")"]++
	}
	out := make([]checks.Unchecked, 0, len(order))
	for _, p := range order {
		fk := byFile[p]
		kinds := make([]string, 0, len(fk.counts))
		for k, n := range fk.counts {
			kinds = append(kinds, fmt.Sprintf("%d %s", n, k))
		}
		sort.Strings(kinds)
		at := checks.At(fk.first, nil, "")
		at.RuleID = RuleID
		out = append(out, checks.Unchecked{At: at, Reason: "custom resources not validated: no CRD in the repository: " + strings.Join(kinds, ", ")})
	}
	return out
}

// configGroups are API groups of configuration file formats that look like
// Kubernetes objects but are read by a tool, never applied to a cluster.
var configGroups = []string{
	"kustomize.config.k8s.io", "kubeadm.k8s.io", "kubelet.config.k8s.io", "kubeproxy.config.k8s.io",
	"apiserver.config.k8s.io", "audit.k8s.io", "kind.x-k8s.io", "skaffold.dev", "client.authentication.k8s.io",
	"kubescheduler.config.k8s.io", "config.kubernetes.io", "builtin", "ctlptl.dev", "k3d.io",
}

// IsCustomResource reports whether o is an object of a kind the API server
// itself does not serve: a custom resource, not a configuration file
// format (kustomize, kubeadm, kind, skaffold), a kustomize patch or a
// template with placeholders.
func IsCustomResource(o *manifest.Object) bool {
	if o.Kind == "" || o.Patch || o.Templated || checks.IsKustomization(o) {
		return false
	}
	group, version, ok := strings.Cut(o.APIVersion, "/")
	if !ok || version == "" || kube.BuiltinGroups[group] || !strings.Contains(group, ".") {
		return false
	}
	for _, g := range configGroups {
		if group == g || strings.HasSuffix(group, "."+g) {
			return false
		}
	}
	return true
}

// fieldPath turns a field error's path ("spec.items[0].name",
// "metadata.labels[app.kubernetes.io/name]") into a manifest path.
func fieldPath(p string) manifest.Path {
	return kube.ParseFieldPath(p)
}

// costBudget is the API server's runtime CEL budget for one custom resource.
const costBudget = celconfig.RuntimeCELCostBudget
