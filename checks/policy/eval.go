package policy

import (
	"context"
	"errors"
	"fmt"
	"strings"

	celtypes "github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	celplugin "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/rules"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/authentication/user"
	apiservercel "k8s.io/apiserver/pkg/cel"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/crdschema"
	"github.com/prodready/prodready/checks/kube"
	"github.com/prodready/prodready/checks/manifest"
)

// target is one object as admission sees it on create, made once for
// every policy. Its content (the object as JSON, defaulted) is made only
// when a policy matches it: most objects of a run match no policy.
type target struct {
	obj        *manifest.Object
	gvk        schema.GroupVersionKind
	gvr        schema.GroupVersionResource
	namespaced bool
	namespace  string // "" for a cluster-scoped object, or one whose namespace no file says
	crd        *crdschema.Definition
	// attrs name the request; until load they carry no object, which
	// matching by resource and operation does not read.
	attrs     admission.Attributes
	versioned *admission.VersionedAttributes
	loaded    bool
	err       error // the object cannot be read as JSON
}

// newTarget describes obj for admission: its kind, resource (a CRD of the
// run names its plural and scope), namespace and content.
func newTarget(ctx *checks.Context, s *set, obj *manifest.Object) *target {
	gv, _ := schema.ParseGroupVersion(obj.APIVersion)
	t := &target{obj: obj, gvk: gv.WithKind(obj.Kind)}
	t.gvr = kube.GuessResource(t.gvk)
	t.namespaced = !kube.ClusterScoped(gv.Group, obj.Kind)
	t.crd = s.crds.LookupKind(gv.Group, obj.Kind)
	if t.crd != nil && t.crd.Plural != "" {
		t.gvr.Resource, t.namespaced = t.crd.Plural, t.crd.Namespaced
	}
	if t.namespaced {
		t.namespace = ctx.Namespace(obj)
	}
	t.attrs = t.attributes(nil)
	return t
}

// attributes are the admission attributes of a create of o (nil: an
// object not made yet).
func (t *target) attributes(o runtime.Object) admission.Attributes {
	attrNamespace := t.namespace
	if t.obj.Kind == "Namespace" && t.gvk.Group == "" {
		attrNamespace = t.obj.Name // admission names a Namespace's own namespace so
	}
	return admission.NewAttributesRecord(o, nil, t.gvk, attrNamespace, t.obj.Name, t.gvr, "", admission.Create, &metav1.CreateOptions{}, false, &user.DefaultInfo{})
}

// load makes t's content, once: the object as JSON, with its CRD's
// defaults applied as the API server applies them when it decodes a custom
// resource. It reports whether the content could be made.
func (t *target) load() bool {
	if t.loaded {
		return t.err == nil
	}
	t.loaded = true
	u, err := kube.Unstructured(t.obj)
	if err != nil {
		t.err = err
		return false
	}
	if t.crd != nil && t.crd.Err == nil {
		t.crd.Version(t.gvk.Version).ApplyDefaults(u)
	}
	o := &unstructured.Unstructured{Object: u}
	t.attrs = t.attributes(o)
	t.versioned = &admission.VersionedAttributes{Attributes: t.attrs, VersionedKind: t.gvk, VersionedObject: admission.NewLazyObject(o)}
	return true
}

// evaluate runs policy p on t through each of its bindings that matches,
// and returns the refusals, one per failed validation at the highest
// severity of the bindings that refuse it.
func (p *policy) evaluate(ctx *checks.Context, s *set, t *target) []checks.Finding {
	if p.overBudget.Load() || p.kinds != nil && !p.kinds[t.obj.Kind] || !p.matches(s, t, p.spec.MatchConstraints, true) || !t.load() {
		return nil
	}
	type refusal struct {
		finding checks.Finding
		index   int
	}
	var refusals []refusal
	seen := map[string]int{} // message → index in refusals
	for _, b := range p.bindings {
		if b.severity == 0 {
			continue // no action the cluster takes
		}
		if b.spec.MatchResources != nil && !p.matches(s, t, b.spec.MatchResources, false) {
			continue
		}
		params, ok := p.params(ctx, s, t, b)
		if !ok {
			continue
		}
		ns, ok := p.namespaceObject(s, t)
		if !ok {
			continue
		}
		for _, param := range params {
			for _, f := range p.validate(s, t, b, param, ns) {
				if i, dup := seen[f.Message]; dup {
					refusals[i].finding.Severity = max(refusals[i].finding.Severity, f.Severity)
					continue
				}
				seen[f.Message] = len(refusals)
				refusals = append(refusals, refusal{finding: f})
			}
		}
	}
	out := make([]checks.Finding, len(refusals))
	for i, r := range refusals {
		out[i] = r.finding
	}
	return out
}

// matches reports whether t is among the resources mc selects: resource
// rules (CREATE), exclusions, names, object and namespace selectors.
// constraints says mc is the policy's own matchConstraints, which must
// name resources; a binding's matchResources narrows them and may name
// none.
func (p *policy) matches(s *set, t *target, mc *admissionregistrationv1.MatchResources, constraints bool) bool {
	if mc == nil {
		return !constraints
	}
	if constraints || len(mc.ResourceRules) > 0 {
		if !anyRule(mc.ResourceRules, t) {
			return false
		}
	}
	if anyRule(mc.ExcludeResourceRules, t) {
		return false
	}
	if mc.ObjectSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(mc.ObjectSelector)
		if err != nil || !sel.Matches(labels.Set(t.obj.Labels)) {
			return false
		}
	}
	if mc.NamespaceSelector == nil || !t.namespaced && !(t.obj.Kind == "Namespace" && t.gvk.Group == "") {
		return true
	}
	sel, err := metav1.LabelSelectorAsSelector(mc.NamespaceSelector)
	if err != nil {
		return false
	}
	if sel.Empty() {
		return true
	}
	nsLabels, ok := p.namespaceLabels(s, t, mc.NamespaceSelector)
	if !ok {
		return false
	}
	return sel.Matches(labels.Set(nsLabels))
}

// anyRule reports whether any of rs matches t on CREATE, with its
// resourceNames.
func anyRule(rs []admissionregistrationv1.NamedRuleWithOperations, t *target) bool {
	for _, r := range rs {
		m := rules.Matcher{Rule: r.RuleWithOperations, Attr: t.attrs}
		if !m.Matches() {
			continue
		}
		if len(r.ResourceNames) == 0 {
			return true
		}
		for _, n := range r.ResourceNames {
			if n == t.obj.Name {
				return true
			}
		}
	}
	return false
}

// metadataName is the label every Namespace carries with its own name.
const metadataName = "kubernetes.io/metadata.name"

// namespaceLabels returns the labels of t's Namespace for a selector:
// the Namespace object's of the run, the object's own for a Namespace, or
// only kubernetes.io/metadata.name when that is all the selector reads.
// When no file can tell, the policy is noted as not evaluated there.
func (p *policy) namespaceLabels(s *set, t *target, sel *metav1.LabelSelector) (map[string]string, bool) {
	if t.obj.Kind == "Namespace" && t.gvk.Group == "" {
		return withName(t.obj.Labels, t.obj.Name), true
	}
	if t.namespace == "" {
		s.notes.add(p, "its namespaceSelector needs the namespace of objects whose namespace no file says", t.obj)
		return nil, false
	}
	if ns := s.namespaces[t.namespace]; ns != nil {
		return withName(ns.Labels, ns.Name), true
	}
	onlyName := len(sel.MatchLabels) <= 1
	for k := range sel.MatchLabels {
		onlyName = onlyName && k == metadataName
	}
	for _, r := range sel.MatchExpressions {
		onlyName = onlyName && r.Key == metadataName
	}
	if onlyName {
		return map[string]string{metadataName: t.namespace}, true
	}
	s.notes.add(p, "its namespaceSelector reads the labels of Namespace "+t.namespace+", which is not in the repository", t.obj)
	return nil, false
}

// withName returns a Namespace's labels with kubernetes.io/metadata.name,
// which the API server sets on every Namespace.
func withName(l map[string]string, name string) map[string]string {
	out := make(map[string]string, len(l)+1)
	for k, v := range l {
		out[k] = v
	}
	out[metadataName] = name
	return out
}

// namespaceObject returns the Namespace CEL's namespaceObject is, when
// the policy reads it: the run's Namespace of t (nil for a cluster-scoped
// object). ok is false when no file says what it is.
func (p *policy) namespaceObject(s *set, t *target) (*corev1.Namespace, bool) {
	if !p.usesNamespaceObject || !t.namespaced {
		return nil, true
	}
	o := s.namespaces[t.namespace]
	if o == nil {
		s.notes.add(p, "an expression reads namespaceObject, and Namespace "+orUnknown(t.namespace)+" is not in the repository", t.obj)
		return nil, false
	}
	var ns corev1.Namespace
	if err := decodeInto(o, &ns); err != nil {
		return nil, false
	}
	return &ns, true
}

func orUnknown(ns string) string {
	if ns == "" {
		return "(unknown: no file says the object's namespace)"
	}
	return ns
}

// params returns the params binding b gives t: none (one nil) when the
// policy takes none or the binding names none, the run's objects of the
// policy's paramKind that paramRef names or selects otherwise. When none
// is in the run the policy is noted as not evaluated (the cluster may
// have them).
func (p *policy) params(ctx *checks.Context, s *set, t *target, b *binding) ([]runtime.Object, bool) {
	pk, ref := p.spec.ParamKind, b.spec.ParamRef
	if pk == nil || ref == nil {
		return []runtime.Object{nil}, true
	}
	var found []runtime.Object
	var sel labels.Selector
	if ref.Selector != nil {
		var err error
		if sel, err = metav1.LabelSelectorAsSelector(ref.Selector); err != nil {
			return nil, false
		}
	}
	ns := ref.Namespace
	for _, o := range ctx.ByKind(pk.Kind) {
		if o.APIVersion != pk.APIVersion {
			continue
		}
		if ns != "" && ctx.Namespace(o) != "" && ctx.Namespace(o) != ns {
			continue
		}
		if ns == "" && t.namespace != "" && ctx.Namespace(o) != "" && ctx.Namespace(o) != t.namespace && !clusterParams(pk) {
			continue
		}
		if ref.Name != "" && o.Name != ref.Name || sel != nil && !sel.Matches(labels.Set(o.Labels)) {
			continue
		}
		u, err := kube.Unstructured(o)
		if err != nil {
			continue
		}
		found = append(found, &unstructured.Unstructured{Object: u})
	}
	if len(found) == 0 {
		what := pk.Kind + " " + ref.Name
		if ref.Name == "" {
			what = pk.Kind + " objects matching its paramRef selector"
		}
		s.notes.add(p, fmt.Sprintf("binding %s takes params (%s), which are not in the repository", b.name, what), t.obj)
		return nil, false
	}
	return found, true
}

// clusterParams reports whether a paramKind lives in no namespace.
func clusterParams(pk *admissionregistrationv1.ParamKind) bool {
	gv, _ := schema.ParseGroupVersion(pk.APIVersion)
	return kube.ClusterScoped(gv.Group, pk.Kind)
}

// validate evaluates the policy's match conditions and validations on t
// with one binding's params and returns its refusals as findings.
func (p *policy) validate(s *set, t *target, b *binding, param runtime.Object, ns *corev1.Namespace) []checks.Finding {
	ctx := context.Background()
	request := celplugin.CreateAdmissionRequest(t.attrs, metav1.GroupVersionResource(t.gvr), metav1.GroupVersionKind(t.gvk))
	vars := celplugin.OptionalVariableBindings{VersionedParams: param}
	failClosed := p.spec.FailurePolicy == nil || *p.spec.FailurePolicy == admissionregistrationv1.Fail
	if p.matchConditions != nil {
		results, _, err := p.matchConditions.ForInput(ctx, t.versioned, request, vars, nil, celconfig.RuntimeCELCostBudgetMatchConditions)
		if err != nil {
			return p.evalError(s, t, b, err, failClosed)
		}
		for _, r := range results {
			if r.Error != nil {
				return p.evalError(s, t, b, r.Error, failClosed)
			}
			if r.EvalResult != celtypes.True {
				return nil // a match condition excludes it
			}
		}
	}
	nsObj := celplugin.CreateNamespaceObject(ns)
	results, remaining, err := p.validations.ForInput(ctx, t.versioned, request, vars, nsObj, celconfig.RuntimeCELCostBudget)
	if err != nil {
		return p.evalError(s, t, b, err, failClosed)
	}
	messages, _, _ := p.messages.ForInput(ctx, t.versioned, request, vars, nsObj, remaining)
	var out []checks.Finding
	for i, r := range results {
		if i >= len(p.spec.Validations) {
			break
		}
		v := p.spec.Validations[i]
		if r.Error != nil {
			out = append(out, p.evalError(s, t, b, r.Error, failClosed)...)
			continue
		}
		if r.EvalResult == celtypes.True {
			continue
		}
		msg := ""
		if i < len(messages) && messages[i].Error == nil && messages[i].EvalResult != nil {
			if s, ok := messages[i].EvalResult.Value().(string); ok && !strings.Contains(s, "\n") && len(s) <= celconfig.MaxEvaluatedMessageExpressionSizeBytes {
				msg = strings.TrimSpace(s)
			}
		}
		if msg == "" {
			msg = strings.TrimSpace(v.Message)
		}
		if msg == "" {
			msg = "failed expression: " + strings.TrimSpace(v.Expression)
		}
		where := p.expressionPaths[i]
		if i < len(p.fieldPaths) && p.fieldPaths[i] != "" {
			where = kube.ParseFieldPath(p.fieldPaths[i])
		}
		f := checks.At(t.obj, where, p.refusal(msg, b, v.Reason))
		f.RuleID, f.Severity = p.id(), b.severity
		out = append(out, f)
	}
	return out
}

// refusal is a finding's message: the policy's own, then which policy and
// binding refuse, and how.
func (p *policy) refusal(msg string, b *binding, reason *metav1.StatusReason) string {
	via := ""
	if b.obj != nil {
		via = ", binding " + b.name
	}
	r := ""
	if reason != nil && *reason != "" {
		r = ", reason " + string(*reason)
	}
	gen := ""
	if p.autogen != "" {
		gen = ", " + p.autogen
	}
	return fmt.Sprintf("%s (%s %s %s%s%s: %s%s)", msg, p.kind, p.name, located(p.obj), gen, via, b.actions, r)
}

// evalError is what the cluster does when an expression fails at run
// time: refuse when failurePolicy is Fail (the default), admit otherwise.
// A field missing from a built-in kind is the exception: the API server
// sets defaults (replicas, a pod's default tolerations, …) and runs the
// mutating admission plugins before any policy sees the object, which no
// file shows, so the policy is noted as not evaluated there instead.
func (p *policy) evalError(s *set, t *target, b *binding, err error, failClosed bool) []checks.Finding {
	if errors.Is(err, apiservercel.ErrOutOfBudget) || strings.Contains(err.Error(), "cost limit exceeded") {
		// The API server refuses to store a policy whose cost it estimates
		// over the budget; one that runs over it here is not evaluated
		// further (a hostile policy would cost the budget per object).
		if !p.overBudget.Swap(true) {
			s.notes.add(p, "an expression runs over the API server's CEL cost budget", t.obj)
		}
		return nil
	}
	if !failClosed {
		return nil
	}
	if strings.Contains(err.Error(), "no such key") && kube.BuiltinGroups[t.gvk.Group] {
		key := err.Error()[strings.LastIndex(err.Error(), "no such key"):]
		s.notes.add(p, "an expression reads a field the "+t.obj.Kind+" omits ("+strings.TrimSpace(key)+"), which the API server's defaults or mutating admission may set before the policy runs", t.obj)
		return nil
	}
	f := checks.At(t.obj, nil, p.refusal("an expression fails on this object, and failurePolicy Fail refuses it: "+err.Error(), b, nil))
	f.RuleID, f.Severity = p.id(), b.severity
	return []checks.Finding{f}
}
