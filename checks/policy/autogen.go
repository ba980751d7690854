package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// Kyverno's pod-controller autogen, as its pkg/cel/autogen does for a
// ValidatingPolicy: a policy that matches Pods alone (one resource rule,
// group "" version v1 resource pods, no names, no selectors, no
// exclusions) is also evaluated on the pod templates of the controllers
// that make Pods. Its expressions are rewritten so that object.spec reads
// the template's spec and object.metadata its metadata (object.metadata.name
// and .namespace stay the controller's own), and each match condition
// holds only for the controllers' kinds. spec.autogen.podControllers.controllers
// names the controllers (resource names; an empty list generates none);
// enabled: false turns it off.

// podController is one controller autogen covers.
type podController struct {
	group, resource, kind string
	cronJob               bool // its pod template is under spec.jobTemplate
}

// podControllers are the controllers Kyverno generates rules for, by the
// resource names spec.autogen.podControllers.controllers takes.
var podControllers = map[string]podController{
	"daemonsets":   {group: "apps", resource: "daemonsets", kind: "DaemonSet"},
	"deployments":  {group: "apps", resource: "deployments", kind: "Deployment"},
	"replicasets":  {group: "apps", resource: "replicasets", kind: "ReplicaSet"},
	"statefulsets": {group: "apps", resource: "statefulsets", kind: "StatefulSet"},
	"jobs":         {group: "batch", resource: "jobs", kind: "Job"},
	"cronjobs":     {group: "batch", resource: "cronjobs", kind: "CronJob", cronJob: true},
}

// autogenConfig is a ValidatingPolicy's spec.autogen.
type autogenConfig struct {
	PodControllers *struct {
		Enabled     *bool    `json:"enabled"`
		Controllers []string `json:"controllers"`
	} `json:"podControllers"`
}

// canAutoGen reports whether Kyverno generates pod-controller rules for a
// policy with these matchConstraints.
func canAutoGen(mc *admissionregistrationv1.MatchResources) bool {
	if mc == nil || len(mc.ExcludeResourceRules) != 0 || len(mc.ResourceRules) != 1 {
		return false
	}
	if s := mc.NamespaceSelector; s != nil && (len(s.MatchLabels) > 0 || len(s.MatchExpressions) > 0) {
		return false
	}
	if s := mc.ObjectSelector; s != nil && (len(s.MatchLabels) > 0 || len(s.MatchExpressions) > 0) {
		return false
	}
	r := mc.ResourceRules[0]
	return len(r.ResourceNames) == 0 &&
		slices.Equal(r.APIGroups, []string{""}) && slices.Equal(r.APIVersions, []string{"v1"}) && slices.Equal(r.Resources, []string{"pods"})
}

// autogen returns the policies Kyverno generates from p for pod
// controllers: one for those whose template is at spec.template, one for
// CronJobs; none when p does not match Pods alone or its config turns
// autogen off.
func autogen(p *policy, cfg *autogenConfig) []*policy {
	if p.reason != "" || !canAutoGen(p.spec.MatchConstraints) {
		return nil
	}
	names := []string{"cronjobs", "daemonsets", "deployments", "jobs", "replicasets", "statefulsets"}
	if cfg != nil && cfg.PodControllers != nil {
		if e := cfg.PodControllers.Enabled; e != nil && !*e {
			return nil
		}
		if cfg.PodControllers.Controllers != nil {
			names = slices.Sorted(slices.Values(cfg.PodControllers.Controllers))
		}
	}
	var templates, cronJobs []podController
	for _, n := range slices.Compact(names) {
		c, ok := podControllers[n]
		switch {
		case !ok:
			continue // Kyverno skips a name it does not know
		case c.cronJob:
			cronJobs = append(cronJobs, c)
		default:
			templates = append(templates, c)
		}
	}
	var out []*policy
	for _, group := range []struct {
		targets []podController
		prefix  string
		spec    string
	}{
		{templates, "autogen", "spec.template"},
		{cronJobs, "autogen-cronjobs", "spec.jobTemplate.spec.template"},
	} {
		if len(group.targets) == 0 {
			continue
		}
		spec, err := rewrite(p.spec, group.targets, group.prefix, group.spec)
		if err != nil {
			continue
		}
		var kinds []string
		for _, t := range group.targets {
			kinds = append(kinds, t.kind)
		}
		out = append(out, &policy{obj: p.obj, kind: p.kind, name: p.name, spec: spec, bindings: p.bindings, parent: p,
			autogen: "its pod-controller autogen for " + strings.Join(kinds, ", ")})
	}
	return out
}

// rewrite makes the spec Kyverno generates for targets: their resource
// rules with the policy's operations, each match condition true for other
// kinds, and every object.spec / object.metadata read from the pod
// template at template.
func rewrite(spec admissionregistrationv1.ValidatingAdmissionPolicySpec, targets []podController, prefix, template string) (admissionregistrationv1.ValidatingAdmissionPolicySpec, error) {
	ops := spec.MatchConstraints.ResourceRules[0].Operations
	byGroup := map[string][]string{}
	var groups, preconditions []string
	for _, t := range targets {
		if byGroup[t.group] == nil {
			groups = append(groups, t.group)
		}
		byGroup[t.group] = append(byGroup[t.group], t.resource)
		preconditions = append(preconditions, fmt.Sprintf("(object.apiVersion == '%s/v1' && object.kind =='%s')", t.group, t.kind))
	}
	slices.Sort(groups)
	slices.Sort(preconditions)
	mc := &admissionregistrationv1.MatchResources{}
	for _, g := range groups {
		mc.ResourceRules = append(mc.ResourceRules, admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: ops, Rule: admissionregistrationv1.Rule{APIGroups: []string{g}, APIVersions: []string{"v1"}, Resources: byGroup[g]},
		}})
	}
	spec.MatchConstraints = mc
	var conds []admissionregistrationv1.MatchCondition
	for _, m := range spec.MatchConditions {
		conds = append(conds, admissionregistrationv1.MatchCondition{
			Name:       prefix + "-" + m.Name,
			Expression: fmt.Sprintf("!(%s) || (%s)", strings.Join(preconditions, "||"), m.Expression),
		})
	}
	spec.MatchConditions = conds
	data, err := json.Marshal(spec)
	if err != nil {
		return spec, err
	}
	for _, r := range [][2]string{{"spec", template + ".spec"}, {"metadata", template + ".metadata"}} {
		data = replaceUnprotected(data, "object."+r[0], "object."+r[1])
		data = replaceUnprotected(data, "oldObject."+r[0], "oldObject."+r[1])
	}
	var out admissionregistrationv1.ValidatingAdmissionPolicySpec
	err = json.Unmarshal(data, &out)
	return out, err
}

// replaceUnprotected replaces every from in data with to, except where
// .name or .namespace follows as a whole field (object.metadata.name
// stays the controller's), as Kyverno does. Like Kyverno it rewrites the
// policy's text as a whole, messages included.
func replaceUnprotected(data []byte, from, to string) []byte {
	var out bytes.Buffer
	for {
		i := bytes.Index(data, []byte(from))
		if i < 0 {
			out.Write(data)
			return out.Bytes()
		}
		out.Write(data[:i])
		rest := data[i+len(from):]
		if protected(rest) {
			out.WriteString(from)
		} else {
			out.WriteString(to)
		}
		data = rest
	}
}

// protected reports whether rest starts with .name or .namespace as a
// whole field.
func protected(rest []byte) bool {
	for _, s := range []string{".namespace", ".name"} {
		if !bytes.HasPrefix(rest, []byte(s)) {
			continue
		}
		next := rest[len(s):]
		if len(next) == 0 || !isIdentByte(next[0]) {
			return true
		}
	}
	return false
}

func isIdentByte(b byte) bool {
	return b == '_' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
