package policy

import (
	"context"
	"strings"
	"sync"
	"time"

	celtypes "github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	celplugin "k8s.io/apiserver/pkg/admission/plugin/cel"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

// exception is a Kyverno PolicyException (policies.kyverno.io) of the
// run: it exempts, from the ValidatingPolicies its policyRefs name, the
// objects on which all its matchConditions (and, when it has them, its
// compensating validations) hold. Kyverno reads exceptions in every
// namespace unless its exceptionNamespace flag narrows them, which no file
// of the repository says, so every exception of the run applies.
type exception struct {
	obj         *manifest.Object
	refs        []policyRef
	conditions  celplugin.ConditionEvaluator // nil when it has none: every object
	validations celplugin.ConditionEvaluator // nil when it has none
	// reason, when set, says why the exception cannot be applied.
	reason string
}

// policyRef is one policy an exception names.
type policyRef struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// names reports whether the exception names policy p (by name, and by
// kind when the reference gives one).
func (e *exception) names(p *policy) bool {
	for _, r := range e.refs {
		if r.Name == p.name && (r.Kind == "" || r.Kind == p.kind) {
			return true
		}
	}
	return false
}

// exceptions reads the run's Kyverno PolicyExceptions for CEL policies.
// One whose expiresAt has passed is left out, as Kyverno leaves it.
func exceptions(ctx *checks.Context) []*exception {
	var out []*exception
	for _, o := range ctx.ByKind("PolicyException") {
		if !strings.HasPrefix(o.APIVersion, "policies.kyverno.io/") {
			continue // kyverno.io's exceptions are for ClusterPolicy rules, which are not evaluated
		}
		var pe struct {
			Spec struct {
				PolicyRefs      []policyRef                              `json:"policyRefs"`
				MatchConditions []admissionregistrationv1.MatchCondition `json:"matchConditions"`
				Validations     []admissionregistrationv1.Validation     `json:"validations"`
				ExpiresAt       *metav1.Time                             `json:"expiresAt"`
			} `json:"spec"`
		}
		e := &exception{obj: o}
		if err := decodeInto(o, &pe); err != nil {
			e.reason = "it cannot be read: " + err.Error()
			out = append(out, e)
			continue
		}
		if pe.Spec.ExpiresAt != nil && time.Now().After(pe.Spec.ExpiresAt.Time) {
			continue
		}
		e.refs = pe.Spec.PolicyRefs
		e.compile(pe.Spec.MatchConditions, pe.Spec.Validations)
		out = append(out, e)
	}
	return out
}

// compile compiles the exception's match conditions and validations in
// the API server's CEL environment.
func (e *exception) compile(conds []admissionregistrationv1.MatchCondition, vals []admissionregistrationv1.Validation) {
	comp, err := celplugin.NewCompositedCompiler(baseEnv())
	if err != nil {
		e.reason = "the CEL environment cannot be made: " + err.Error()
		return
	}
	var errs []error
	compileAll := func(exprs []string) celplugin.ConditionEvaluator {
		if len(exprs) == 0 {
			return nil
		}
		acc := make([]celplugin.ExpressionAccessor, len(exprs))
		for i, x := range exprs {
			acc[i] = &condition{expression: x}
		}
		ev := comp.CompileCondition(acc, celplugin.OptionalVariableDeclarations{}, environment.StoredExpressions)
		errs = append(errs, ev.CompilationErrors()...)
		return ev
	}
	condExprs := make([]string, len(conds))
	for i, c := range conds {
		condExprs[i] = c.Expression
	}
	valExprs := make([]string, len(vals))
	for i, v := range vals {
		valExprs[i] = v.Expression
	}
	e.conditions, e.validations = compileAll(condExprs), compileAll(valExprs)
	if len(errs) > 0 {
		e.reason = "an expression does not compile in the Kubernetes CEL environment: " + errs[0].Error()
		e.conditions, e.validations = nil, nil
	}
}

// exempts reports whether the exception exempts t: every match condition
// and every compensating validation holds on it. An expression that fails
// exempts nothing.
func (e *exception) exempts(t *target) bool {
	if e.reason != "" || t.versioned == nil {
		return false
	}
	request := celplugin.CreateAdmissionRequest(t.attrs, metav1.GroupVersionResource(t.gvr), metav1.GroupVersionKind(t.gvk))
	for _, ev := range []celplugin.ConditionEvaluator{e.conditions, e.validations} {
		if ev == nil {
			continue
		}
		results, _, err := ev.ForInput(context.Background(), t.versioned, request, celplugin.OptionalVariableBindings{}, nil, celconfig.RuntimeCELCostBudgetMatchConditions)
		if err != nil {
			return false
		}
		for _, r := range results {
			if r.Error != nil || r.EvalResult != celtypes.True {
				return false
			}
		}
	}
	return true
}

// exemptions gathers, from every CPU, the refusals an exception exempted.
type exemptions struct {
	mu  sync.Mutex
	out []checks.Exempted
}

// exempt returns the refusals of p on t that no exception of the run
// exempts, and records the others with the exception that exempts them.
func (s *set) exempt(p *policy, t *target, refusals []checks.Finding) []checks.Finding {
	root := p
	if p.parent != nil {
		root = p.parent
	}
	for _, e := range s.exceptions {
		if !e.names(root) || !e.exempts(t) {
			continue
		}
		at := checks.At(e.obj, nil, "")
		by := "Kyverno PolicyException " + e.obj.Name
		if ns := e.obj.Namespace; ns != "" {
			by = "Kyverno PolicyException " + ns + "/" + e.obj.Name
		}
		s.exempted.mu.Lock()
		for _, f := range refusals {
			s.exempted.out = append(s.exempted.out, checks.Exempted{Finding: f, Exception: at, By: by})
		}
		s.exempted.mu.Unlock()
		return nil
	}
	return refusals
}

// unusable lists the exceptions that cannot be applied, with why: the
// objects they name are judged without them.
func (s *set) unusable() []checks.Unchecked {
	var out []checks.Unchecked
	for _, e := range s.exceptions {
		if e.reason == "" {
			continue
		}
		at := checks.At(e.obj, nil, "")
		at.RuleID = RuleID
		out = append(out, checks.Unchecked{At: at, Reason: "Kyverno PolicyException " + e.obj.Name + " is not applied (the objects it names are judged without it): " + e.reason})
	}
	return out
}
