// Package policy evaluates the repository's own admission policies on
// every object of a run, offline, as the API server would on create:
// ValidatingAdmissionPolicies with their bindings, params and the
// Namespaces of the run, and Kyverno ValidatingPolicies (the same CEL
// shape, their validationActions in the policy, a policy on Pods also on
// the pod templates of their controllers as Kyverno's autogen does). Each refusal is a finding
// policy/<policy name> at the line of the field it is about, graded by
// the binding's validationActions (Deny error, Warn warning, Audit info).
// What cannot be known offline (the authorizer, the user, the old object,
// labels of a Namespace not in the run, params not in the run) is said
// once per policy, never guessed. Kyverno ClusterPolicy and Policy
// validate rules are listed as not evaluated: Kyverno's engine does not
// build with this module's Kubernetes libraries.
package policy

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"
	"github.com/prodready/prodready/checks/manifest"
)

// RuleID is the family of the policies' findings: policy/<policy name>.
const RuleID = "policy"

// Rules returns the package's rule.
func Rules() []*checks.Rule { return []*checks.Rule{rule} }

var rule = &checks.Rule{
	ID: RuleID, Family: true, Section: "11. Admission webhooks and Kyverno", Severity: checks.Error,
	Ref: "https://kubernetes.io/docs/reference/access-authn-authz/validating-admission-policy/",
	Why: "an object that one of the repository's own admission policies (ValidatingAdmissionPolicy with its binding, Kyverno ValidatingPolicy) refuses: the cluster rejects it at deploy time",
	Help: "Findings are `policy/<policy name>`, at the line of the validation's fieldPath, else of the field its expression names, else the kind line; " +
		"the severity is the binding's validationActions (Deny error, Warn warning, Audit info). Configure, ignore or switch off one policy by that ID, or all by `policy`. " +
		"A policy that needs what only the cluster knows (authorizer, request.userInfo, oldObject, labels of a Namespace not in the repository, params not in the repository) is listed as not evaluated, with why.",
	Check:     check,
	Unchecked: unchecked,
	Exempted:  exempted,
}

// check evaluates every policy of the run on obj.
func check(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
	s := Compiled.Of(ctx)
	if len(s.policies) == 0 || !admitted(obj) {
		return nil
	}
	t := newTarget(ctx, s, obj)
	var out []checks.Finding
	for _, p := range s.policies {
		if p.reason != "" || !s.enabled(ctx.Config, p) {
			continue
		}
		if fs := p.evaluate(ctx, s, t); len(fs) > 0 {
			out = append(out, s.exempt(p, t, fs)...)
		}
	}
	return out
}

// exempted returns the refusals a Kyverno PolicyException of the run
// exempted, in file and line order.
func exempted(ctx *checks.Context) []checks.Exempted {
	s := Compiled.Of(ctx)
	s.exempted.mu.Lock()
	defer s.exempted.mu.Unlock()
	out := slices.Clone(s.exempted.out)
	slices.SortFunc(out, func(a, b checks.Exempted) int {
		return cmp.Or(cmp.Compare(a.Finding.File, b.Finding.File), cmp.Compare(a.Finding.Line, b.Finding.Line), cmp.Compare(a.Finding.RuleID, b.Finding.RuleID), cmp.Compare(a.Finding.Message, b.Finding.Message))
	})
	return out
}

// admitted reports whether obj is something applied to a cluster, which
// admission sees: a Kubernetes object, not a kustomization, a kustomize
// patch or a template with placeholders.
func admitted(obj *manifest.Object) bool {
	return obj.Kind != "" && obj.APIVersion != "" && !obj.Patch && !obj.Templated && !checks.IsKustomization(obj)
}

// unchecked lists the policies of the run that were not evaluated, or not
// on every object, with why: once per policy.
func unchecked(ctx *checks.Context) []checks.Unchecked {
	s := Compiled.Of(ctx)
	var out []checks.Unchecked
	for _, p := range s.policies {
		if p.parent != nil && (p.reason == "" || p.parent.reason != "") {
			continue // an autogen's notes are its policy's
		}
		reasons := s.notes.of(p)
		if p.reason != "" {
			reasons = []string{p.reason}
		}
		if len(reasons) == 0 {
			continue
		}
		const shown = 3
		more := ""
		if len(reasons) > shown {
			more = fmt.Sprintf("; and %d more", len(reasons)-shown)
			reasons = reasons[:shown]
		}
		at := checks.Finding{File: checks.ConfigFileName, Object: checks.ObjectRef{Doc: -1}}
		if p.obj != nil {
			at = checks.At(p.obj, nil, "")
		}
		at.RuleID = p.id()
		what := "is not evaluated"
		if p.parent != nil {
			what = "is not evaluated in " + p.autogen
		}
		if p.reason == "" {
			what = "is not evaluated on every object"
		}
		out = append(out, checks.Unchecked{At: at, Reason: fmt.Sprintf("%s %s %s: %s%s", p.kind, p.name, what, strings.Join(reasons, "; "), more)})
	}
	out = append(out, s.unusable()...)
	return append(out, s.kyverno...)
}

// located names where a policy is written, for the messages.
func located(o *manifest.Object) string {
	if o == nil {
		return "in " + checks.ConfigFileName
	}
	return kube.WrittenAt(o)
}
