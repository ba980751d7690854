package policy

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/cel-go/cel"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	celplugin "k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	sigsjson "sigs.k8s.io/json"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/crdschema"
	"github.com/prodready/prodready/checks/manifest"
)

// Compiled is a run's policies, found among its objects and compiled once
// per run, with their bindings and what the run's objects need of them.
var Compiled = checks.NewIndex(build)

// set is one run's policies.
type set struct {
	policies   []*policy
	namespaces map[string]*manifest.Object // the run's Namespaces by name
	crds       *crdschema.Set
	notes      notes
	kyverno    []checks.Unchecked // Kyverno ClusterPolicy and Policy rules not evaluated
	exceptions []*exception       // the run's Kyverno PolicyExceptions for CEL policies
	exempted   exemptions
}

// policy is one admission policy of the run, compiled.
type policy struct {
	obj        *manifest.Object
	kind, name string
	spec       admissionregistrationv1.ValidatingAdmissionPolicySpec
	bindings   []*binding
	// reason, when set, says why the policy is not evaluated at all.
	reason string

	validations         celplugin.ConditionEvaluator
	messages            celplugin.ConditionEvaluator
	matchConditions     celplugin.ConditionEvaluator // nil when it has none
	usesNamespaceObject bool
	expressionPaths     []manifest.Path // per validation: the field its expression names first
	// fieldPaths are the validations' fieldPath, which a custom check of
	// .prodready.yaml may write (a ValidatingAdmissionPolicy has none).
	fieldPaths []string
	// kinds, when set, are the kinds a custom check matches.
	kinds map[string]bool
	// overBudget is set once an expression ran over the cost budget: the
	// policy is not evaluated on the run's other objects.
	overBudget atomic.Bool
	// parent, when set, is the Kyverno ValidatingPolicy this policy is the
	// pod-controller autogen of (autogen.go), and autogen says so for the
	// messages: its findings and notes are the parent's.
	parent  *policy
	autogen string
}

// id is the policy's findings' rule ID.
func (p *policy) id() string { return RuleID + "/" + p.name }

// binding binds a policy to resources with validation actions; a Kyverno
// ValidatingPolicy is its own binding.
type binding struct {
	name     string
	obj      *manifest.Object // nil for a Kyverno ValidatingPolicy
	spec     admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec
	severity checks.Severity
	actions  string // as written: "Deny, Audit"
}

// enabled reports whether cfg runs policy p (rules: {policy/<name>: false}
// switches one off).
func (s *set) enabled(cfg *checks.Config, p *policy) bool {
	if rc, ok := cfg.Rules[p.id()]; ok && rc.Enabled != nil {
		return *rc.Enabled
	}
	return true
}

// notes gathers, per policy, why it was not evaluated on some objects, and
// on which; the rule's Check writes them from every CPU.
type notes struct {
	mu  sync.Mutex
	why map[*policy]map[string][]string // reason → the objects, "Kind name"
}

func (n *notes) add(p *policy, reason string, o *manifest.Object) {
	if p.parent != nil {
		p = p.parent // an autogen's notes are its policy's
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.why == nil {
		n.why = map[*policy]map[string][]string{}
	}
	if n.why[p] == nil {
		n.why[p] = map[string][]string{}
	}
	n.why[p][reason] = append(n.why[p][reason], o.Kind+" "+o.Name)
}

// of returns the reasons policy p was not evaluated on some objects, each
// with how many and the first few.
func (n *notes) of(p *policy) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for reason, objs := range n.why[p] {
		sort.Strings(objs)
		const shown = 3
		list := strings.Join(objs[:min(len(objs), shown)], ", ")
		if len(objs) > shown {
			list += fmt.Sprintf(" and %d more", len(objs)-shown)
		}
		out = append(out, fmt.Sprintf("%s (%s)", reason, list))
	}
	sort.Strings(out)
	return out
}

// baseEnv is the API server's CEL environment for stored admission
// expressions, built once per process.
var baseEnv = sync.OnceValue(func() *environment.EnvSet {
	return environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())
})

// compilerFor returns a CEL compiler for a policy's expressions. A
// policy's variables are added to its compiler's environment, so one that
// declares variables gets a compiler of its own; every other policy shares
// one, made once per process: making one builds eight CEL environments,
// and checking in a new environment first indexes its functions, which
// cost more than compiling a run's policies.
func compilerFor(variables bool) (*celplugin.CompositedCompiler, error) {
	if variables {
		return celplugin.NewCompositedCompiler(baseEnv())
	}
	return noVariables()
}

// noVariables is the compiler of the policies that declare no variables.
var noVariables = sync.OnceValues(func() (*celplugin.CompositedCompiler, error) {
	return celplugin.NewCompositedCompiler(baseEnv())
})

// build finds the run's policies, bindings and Namespaces and compiles
// each policy once.
func build(ctx *checks.Context) *set {
	s := &set{namespaces: map[string]*manifest.Object{}, crds: crdschema.Definitions.Of(ctx)}
	for _, ns := range ctx.ByKind("Namespace") {
		if ns.APIVersion == "v1" && ns.Name != "" {
			if _, dup := s.namespaces[ns.Name]; !dup {
				s.namespaces[ns.Name] = ns
			}
		}
	}
	byName := map[string]*policy{}
	for _, o := range ctx.ByKind("ValidatingAdmissionPolicy") {
		if !strings.HasPrefix(o.APIVersion, "admissionregistration.k8s.io/") || o.Name == "" {
			continue
		}
		p := &policy{obj: o, kind: o.Kind, name: o.Name}
		if err := decodeInto(o, &struct {
			Spec *admissionregistrationv1.ValidatingAdmissionPolicySpec `json:"spec"`
		}{&p.spec}); err != nil {
			p.reason = "it cannot be read: " + err.Error()
		}
		if _, dup := byName[p.name]; dup {
			continue // an overlay and its base render the same policy
		}
		byName[p.name] = p
		s.policies = append(s.policies, p)
	}
	for _, o := range ctx.ByKind("ValidatingAdmissionPolicyBinding") {
		if !strings.HasPrefix(o.APIVersion, "admissionregistration.k8s.io/") {
			continue
		}
		var b admissionregistrationv1.ValidatingAdmissionPolicyBinding
		if decodeInto(o, &b) != nil {
			continue
		}
		p := byName[b.Spec.PolicyName]
		if p == nil {
			continue // a binding of a policy only the cluster has
		}
		sev, actions := severityOf(b.Spec.ValidationActions)
		p.bindings = append(p.bindings, &binding{name: o.Name, obj: o, spec: b.Spec, severity: sev, actions: actions})
	}
	for _, kind := range []string{"ValidatingPolicy", "NamespacedValidatingPolicy"} {
		for _, o := range ctx.ByKind(kind) {
			if !strings.HasPrefix(o.APIVersion, "policies.kyverno.io/") || o.Name == "" {
				continue
			}
			p, cfg := kyvernoValidatingPolicy(o)
			s.policies = append(s.policies, p)
			s.policies = append(s.policies, autogen(p, cfg)...)
		}
	}
	for i := range ctx.Config.Checks {
		s.policies = append(s.policies, customCheck(&ctx.Config.Checks[i]))
	}
	for _, p := range s.policies {
		if p.reason == "" && len(p.bindings) == 0 {
			continue // unbound: the cluster evaluates it on nothing
		}
		if p.reason == "" {
			p.compile()
		}
	}
	s.kyverno = kyvernoPatternRules(ctx)
	s.exceptions = exceptions(ctx)
	return s
}

// kyvernoValidatingPolicy reads a Kyverno ValidatingPolicy: a VAP's spec
// with its validationActions in the policy, its own binding, and its
// autogen config.
func kyvernoValidatingPolicy(o *manifest.Object) (*policy, *autogenConfig) {
	p := &policy{obj: o, kind: o.Kind, name: o.Name}
	var vp struct {
		Spec struct {
			admissionregistrationv1.ValidatingAdmissionPolicySpec `json:",inline"`
			ValidationActions                                     []admissionregistrationv1.ValidationAction `json:"validationActions"`
			Evaluation                                            *struct {
				Mode string `json:"mode"`
			} `json:"evaluation"`
			Autogen *autogenConfig `json:"autogen"`
		} `json:"spec"`
	}
	if err := decodeInto(o, &vp); err != nil {
		p.reason = "it cannot be read: " + err.Error()
		return p, nil
	}
	p.spec = vp.Spec.ValidatingAdmissionPolicySpec
	if vp.Spec.Evaluation != nil && vp.Spec.Evaluation.Mode == "JSON" {
		p.reason = "its evaluation mode is JSON (it validates JSON payloads, not Kubernetes objects)"
	}
	actions := vp.Spec.ValidationActions
	if len(actions) == 0 {
		actions = []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}
	}
	sev, written := severityOf(actions)
	p.bindings = []*binding{{name: o.Name, severity: sev, actions: written}}
	if o.Kind == "NamespacedValidatingPolicy" && o.Namespace != "" {
		p.bindings[0].spec.MatchResources = &admissionregistrationv1.MatchResources{NamespaceSelector: nil}
	}
	return p, vp.Spec.Autogen
}

// customCheck makes a policy of a custom check of the config: its match
// as resource rules on CREATE (kinds match every resource, then the kind),
// its severity as its binding's.
func customCheck(c *checks.CheckConfig) *policy {
	p := &policy{kind: "custom check", name: c.Name}
	create := []admissionregistrationv1.OperationType{admissionregistrationv1.Create}
	mc := &admissionregistrationv1.MatchResources{}
	for _, r := range c.Match.ResourceRules {
		mc.ResourceRules = append(mc.ResourceRules, admissionregistrationv1.NamedRuleWithOperations{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
			Operations: create, Rule: admissionregistrationv1.Rule{APIGroups: r.APIGroups, APIVersions: r.APIVersions, Resources: r.Resources},
		}})
	}
	if len(c.Match.Kinds) > 0 {
		p.kinds = map[string]bool{}
		for _, k := range c.Match.Kinds {
			p.kinds[k] = true
		}
		if len(mc.ResourceRules) == 0 {
			all := []string{"*"}
			mc.ResourceRules = []admissionregistrationv1.NamedRuleWithOperations{{RuleWithOperations: admissionregistrationv1.RuleWithOperations{
				Operations: create, Rule: admissionregistrationv1.Rule{APIGroups: all, APIVersions: all, Resources: all},
			}}}
		}
	}
	p.spec.MatchConstraints = mc
	for _, v := range c.Variables {
		p.spec.Variables = append(p.spec.Variables, admissionregistrationv1.Variable{Name: v.Name, Expression: v.Expression})
	}
	for i, m := range c.MatchConditions {
		name := m.Name
		if name == "" {
			name = fmt.Sprintf("condition-%d", i)
		}
		p.spec.MatchConditions = append(p.spec.MatchConditions, admissionregistrationv1.MatchCondition{Name: name, Expression: m.Expression})
	}
	for _, v := range c.Validations {
		p.spec.Validations = append(p.spec.Validations, admissionregistrationv1.Validation{Expression: v.Expression, Message: v.Message, MessageExpression: v.MessageExpression})
		p.fieldPaths = append(p.fieldPaths, v.FieldPath)
	}
	sev := c.SeverityOf()
	p.bindings = []*binding{{name: c.Name, severity: sev, actions: "severity " + sev.String()}}
	return p
}

// severityOf grades validationActions: Deny an error, Warn a warning,
// Audit info; the highest wins.
func severityOf(actions []admissionregistrationv1.ValidationAction) (checks.Severity, string) {
	sev := checks.Severity(0)
	var written []string
	for _, a := range actions {
		written = append(written, string(a))
		switch a {
		case admissionregistrationv1.Deny:
			sev = max(sev, checks.Error)
		case admissionregistrationv1.Warn:
			sev = max(sev, checks.Warning)
		case admissionregistrationv1.Audit:
			sev = max(sev, checks.Info)
		}
	}
	return sev, strings.Join(written, ", ")
}

// decodeInto decodes an object's document into v, leniently.
func decodeInto(o *manifest.Object, v any) error {
	j, err := o.JSON()
	if err != nil {
		return err
	}
	return sigsjson.UnmarshalCaseSensitivePreserveInts(j, v)
}

// What no file of the repository can tell: an expression that reads one
// of these is not evaluated.
var (
	readsAuthorizer = regexp.MustCompile(`\bauthorizer\b`)
	readsUserInfo   = regexp.MustCompile(`\brequest\s*\.\s*userInfo\b`)
	readsOldObject  = regexp.MustCompile(`\boldObject\b`)
	readsNamespace  = regexp.MustCompile(`\bnamespaceObject\b`)
	// objectField is the first field chain an expression reads of the
	// object: object.spec.replicas, with the method a chain ends on left out.
	readsVariable = regexp.MustCompile(`\bvariables\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)`)
	objectField   = regexp.MustCompile(`\bobject((?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)+)(\s*\()?`)
)

// compile compiles the policy's expressions in the API server's CEL
// environment, or says why it is not evaluated.
func (p *policy) compile() {
	var all []string
	for _, v := range p.spec.Variables {
		all = append(all, v.Expression)
	}
	for _, m := range p.spec.MatchConditions {
		all = append(all, m.Expression)
	}
	for _, v := range p.spec.Validations {
		all = append(all, v.Expression, v.MessageExpression)
	}
	text := strings.Join(all, "\n")
	switch {
	case len(p.spec.Validations) == 0:
		p.reason = "it has no validations (only auditAnnotations, or nothing): it refuses nothing"
		return
	case readsAuthorizer.MatchString(text):
		p.reason = "an expression reads authorizer, which only the cluster can answer"
		return
	case readsUserInfo.MatchString(text):
		p.reason = "an expression reads request.userInfo, the user who applies it, which no file says"
		return
	case readsOldObject.MatchString(text):
		p.reason = "an expression reads oldObject, the object as it is in the cluster (an UPDATE)"
		return
	case !matchesCreate(p.spec.MatchConstraints):
		p.reason = "its matchConstraints match no CREATE, and applying a manifest is judged as one here"
		return
	}
	p.usesNamespaceObject = readsNamespace.MatchString(text)
	hasParams := p.spec.ParamKind != nil
	withAuthz := celplugin.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}
	plain := celplugin.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: false}
	comp, err := compilerFor(len(p.spec.Variables) > 0)
	if err != nil {
		p.reason = "the CEL environment cannot be made: " + err.Error()
		return
	}
	vars := make([]celplugin.NamedExpressionAccessor, len(p.spec.Variables))
	for i, v := range p.spec.Variables {
		vars[i] = &namedExpression{name: v.Name, expression: v.Expression}
	}
	comp.CompileAndStoreVariables(vars, withAuthz, environment.StoredExpressions)
	validations := make([]celplugin.ExpressionAccessor, len(p.spec.Validations))
	messages := make([]celplugin.ExpressionAccessor, len(p.spec.Validations))
	p.expressionPaths = make([]manifest.Path, len(p.spec.Validations))
	for i, v := range p.spec.Validations {
		validations[i] = &condition{expression: v.Expression}
		if v.MessageExpression != "" {
			messages[i] = &message{expression: v.MessageExpression}
		}
		p.expressionPaths[i] = fieldOf(v.Expression)
		if p.expressionPaths[i] == nil {
			p.expressionPaths[i] = p.variableField(v.Expression)
		}
	}
	p.validations = comp.CompileCondition(validations, withAuthz, environment.StoredExpressions)
	p.messages = comp.CompileCondition(messages, plain, environment.StoredExpressions)
	errs := p.validations.CompilationErrors()
	if len(p.spec.MatchConditions) > 0 {
		conds := make([]celplugin.ExpressionAccessor, len(p.spec.MatchConditions))
		for i, m := range p.spec.MatchConditions {
			conds[i] = &condition{expression: m.Expression}
		}
		p.matchConditions = comp.CompileCondition(conds, withAuthz, environment.StoredExpressions)
		errs = append(errs, p.matchConditions.CompilationErrors()...)
	}
	if len(errs) > 0 {
		why := "an expression does not compile in the Kubernetes CEL environment: " + errs[0].Error()
		if p.kind != "ValidatingAdmissionPolicy" {
			why += " (Kyverno's own CEL libraries are evaluated by Kyverno only)"
		}
		p.reason = why
		p.validations, p.messages, p.matchConditions = nil, nil, nil
	}
}

// variableField returns the field of the object that the first variable
// expr reads (variables.allContainers.all(…)) reads first, nil when none
// does: where a refusal that reads the object through a variable is.
func (p *policy) variableField(expr string) manifest.Path {
	m := readsVariable.FindStringSubmatch(expr)
	if m == nil {
		return nil
	}
	for _, v := range p.spec.Variables {
		if v.Name == m[1] {
			return fieldOf(v.Expression)
		}
	}
	return nil
}

// fieldOf returns the field an expression reads first of the object
// (object.spec.replicas → spec.replicas), nil when it reads none.
func fieldOf(expr string) manifest.Path {
	m := objectField.FindStringSubmatch(expr)
	if m == nil {
		return nil
	}
	var out manifest.Path
	for _, e := range strings.Split(m[1], ".") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	if m[2] != "" && len(out) > 0 {
		out = out[:len(out)-1] // a method: object.spec.containers.all(…)
	}
	return out
}

// matchesCreate reports whether any of the resource rules matches CREATE.
func matchesCreate(mc *admissionregistrationv1.MatchResources) bool {
	if mc == nil {
		return false
	}
	for _, r := range mc.ResourceRules {
		for _, op := range r.Operations {
			if op == admissionregistrationv1.Create || op == admissionregistrationv1.OperationAll {
				return true
			}
		}
	}
	return false
}

// condition, message and namedExpression are the expressions the CEL
// compiler reads: a validation or match condition (boolean), a
// messageExpression (string), a variable (any type).
type condition struct{ expression string }

func (c *condition) GetExpression() string    { return c.expression }
func (c *condition) ReturnTypes() []*cel.Type { return []*cel.Type{cel.BoolType} }

type message struct{ expression string }

func (m *message) GetExpression() string    { return m.expression }
func (m *message) ReturnTypes() []*cel.Type { return []*cel.Type{cel.StringType} }

type namedExpression struct{ name, expression string }

func (n *namedExpression) GetExpression() string    { return n.expression }
func (n *namedExpression) ReturnTypes() []*cel.Type { return []*cel.Type{cel.AnyType} }
func (n *namedExpression) GetName() string          { return n.name }

// kyvernoPatternRules lists the validate rules of Kyverno ClusterPolicies
// and Policies, which are not evaluated: Kyverno's engine pins an older
// Kubernetes release and replaces k8s.io/pod-security-admission, so it
// cannot be built into this binary.
func kyvernoPatternRules(ctx *checks.Context) []checks.Unchecked {
	var out []checks.Unchecked
	for _, kind := range []string{"ClusterPolicy", "Policy"} {
		for _, o := range ctx.ByKind(kind) {
			if !strings.HasPrefix(o.APIVersion, "kyverno.io/") {
				continue
			}
			var cp struct {
				Spec struct {
					Rules []struct {
						Name     string         `json:"name"`
						Validate map[string]any `json:"validate"`
					} `json:"rules"`
				} `json:"spec"`
			}
			if decodeInto(o, &cp) != nil {
				continue
			}
			var names []string
			for _, r := range cp.Spec.Rules {
				if r.Validate != nil {
					names = append(names, r.Name)
				}
			}
			if len(names) == 0 {
				continue
			}
			at := checks.At(o, manifest.Path{"spec", "rules"}, "")
			at.RuleID = RuleID + "/" + o.Name
			out = append(out, checks.Unchecked{At: at, Reason: fmt.Sprintf("Kyverno %s %s: validate rules %s are not evaluated: only Kyverno's own engine evaluates pattern, anyPattern, deny and foreach rules exactly, and it does not build with this binary's Kubernetes libraries (it pins an older release and replaces k8s.io/pod-security-admission); run kyverno test for them", kind, o.Name, strings.Join(names, ", "))})
		}
	}
	return out
}
