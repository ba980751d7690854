package crdschema

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	schemacel "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	sigsjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/manifest"
)

// Definitions are the CustomResourceDefinitions of a run. A CRD is read
// only when an object of its kind is looked up (an install bundle's
// hundred CRDs cost nothing when the run has none of their resources, and
// a lookup of one kind reads the CRDs whose plural can be that kind's
// first), and then only its names, scope and versions, not its schemas
// (schemas.go); a version's schema is decoded, converted and compiled the
// first time a custom resource of that version is validated, and let go
// after the run's last custom resource of that version is (usesLeft).
var Definitions = checks.NewIndex(build)

// Set is a run's CRDs by API group and kind.
type Set struct {
	// byGroup are the CRD documents by the group their name says (a CRD
	// is named <plural>.<group>, which the API server enforces).
	byGroup map[string][]*manifest.Object

	// uses counts the run's custom resources by group, kind and version
	// (usesKey): how many times crd-schema will validate against each.
	uses map[string]int

	mu     sync.Mutex
	groups map[string]*groupCRDs // read as kinds are looked up
}

// usesKey is the key of Set.uses.
func usesKey(group, kind, version string) string {
	return group + "\x00" + kind + "\x00" + version
}

// groupCRDs are one API group's CRDs: those read so far, by kind, and the
// documents not read yet, in the run's order.
type groupCRDs struct {
	kinds  map[string]*Definition
	unread []*manifest.Object
	// unreadable are the CRDs read so far that could not be read.
	unreadable []*Definition
}

// Definition is one CRD of the run.
type Definition struct {
	// Object is the CRD's document.
	Object *manifest.Object
	// Group, Kind and Plural are spec.group, spec.names.kind and
	// spec.names.plural; Namespaced is spec.scope.
	Group, Kind, Plural string
	Namespaced          bool
	// Err says why the CRD could not be read (nil when it was).
	Err error

	versions map[string]*versionSlot
}

// versionSlot is one version of a CRD as read, and its schema compiled
// while custom resources of the run still need it. A compiled schema is
// several times the size of its text (prometheus-operator's and Argo
// CD's: megabytes each) and most CRDs' resources sit in a few files of a
// repository, so a run lets each go after its last use rather than
// holding every one until the end.
type versionSlot struct {
	// Served is the version's served.
	Served bool
	// schema gives the version's schema, converted to the internal
	// types (nil: the version has none); it decodes it from the CRD's
	// text, read again from the file when the run let that go.
	schema func() (*apiextensions.JSONSchemaProps, error)

	mu       sync.Mutex
	compiled *Version // nil until compiled, and once let go
	// usesLeft is how many of the run's validations are still to come
	// (counted when the CRD is read); counted says it was counted. Once
	// a counted version's last validation has run its compiled schema is
	// let go, and a later use (a policy's defaults, a validation the
	// count missed) compiles it again for itself.
	usesLeft int
	counted  bool
}

// Version is one version of a CRD, its schema compiled. It does not
// change once Definition.Version returns it.
type Version struct {
	// Served is the version's served.
	Served bool
	// Structural is the version's schema (nil: the version has none).
	Structural *structuralschema.Structural
	// Err says why the schema cannot be used (not structural, say).
	Err error

	validator apiservervalidation.SchemaValidator
	cel       *schemacel.Validator
}

// Lookup returns the CRD of o's group and kind, nil when the run has none.
func (s *Set) Lookup(o *manifest.Object) *Definition {
	group, _, _ := strings.Cut(o.APIVersion, "/")
	return s.LookupKind(group, o.Kind)
}

// LookupKind returns the CRD of group and kind, nil when the run has none.
// A lookup reads the group's unread CRDs whose names' plurals are the
// kind's usual plurals first, then the others, and stops at the first that
// defines the kind; a kind that two documents define keeps the first read
// (an overlay and its base render the same one). When no CRD of the group
// defines the kind but one named for its plural cannot be read (its YAML
// is broken), that one is the kind's CRD, its Err saying why: the custom
// resource's CRD is in the run, and unreadable, not missing.
func (s *Set) LookupKind(group, kind string) *Definition {
	if len(s.byGroup[group]) == 0 {
		return nil // a built-in group, or no CRD of it: no lock
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.groups[group]
	if g == nil {
		g = &groupCRDs{kinds: map[string]*Definition{}, unread: slices.Clone(s.byGroup[group])}
		s.groups[group] = g
	}
	if d, ok := g.kinds[kind]; ok || len(g.unread) == 0 {
		return d
	}
	count := func(d *Definition) {
		for name, v := range d.versions {
			v.usesLeft, v.counted = s.uses[usesKey(group, d.Kind, name)], s.uses != nil
		}
	}
	plurals := usualPlurals(kind)
	likely := func(o *manifest.Object) bool {
		plural, _, _ := strings.Cut(o.Name, ".")
		return slices.Contains(plurals, plural)
	}
	for _, first := range []bool{true, false} {
		for i := 0; i < len(g.unread); {
			o := g.unread[i]
			if first && !likely(o) {
				i++
				continue
			}
			g.unread = slices.Delete(g.unread, i, i+1)
			d := read(o)
			if d.Err != nil && d.Kind == "" {
				g.unreadable = append(g.unreadable, d)
			}
			if _, dup := g.kinds[d.Kind]; d.Group == group && d.Kind != "" && !dup {
				count(d)
				g.kinds[d.Kind] = d
			}
			if d, ok := g.kinds[kind]; ok {
				return d
			}
		}
	}
	for _, d := range g.unreadable {
		if likely(d.Object) {
			g.kinds[kind] = d
			return d
		}
	}
	return nil
}

// usualPlurals are the plurals a CRD most likely gives kind (Prometheus:
// prometheuses; NetworkPolicy: networkpolicies): lower case, with "s",
// "es", or "y" made "ies". Only the order of reading depends on them.
func usualPlurals(kind string) []string {
	k := strings.ToLower(kind)
	out := []string{k + "s", k + "es", k}
	if strings.HasSuffix(k, "y") {
		out = append(out, strings.TrimSuffix(k, "y")+"ies")
	}
	return out
}

// Version returns the CRD's version v compiled, nil when it has none.
func (d *Definition) Version(v string) *Version {
	return d.version(v, false)
}

// validating is Version for one of the validations the run counted: the
// last of them lets the compiled schema go.
func (d *Definition) validating(v string) *Version {
	return d.version(v, true)
}

// version returns version name compiled, compiling it when it is not:
// kept while counted validations remain (or when none were counted), one
// use's own after the last. use says a counted validation asks.
func (d *Definition) version(name string, use bool) *Version {
	s := d.versions[name]
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ver := s.compiled
	if ver == nil {
		ver = s.compile(d.Object, name)
		if !s.counted || s.usesLeft > 0 {
			s.compiled = ver
		}
	}
	if use && s.counted && s.usesLeft > 0 {
		if s.usesLeft--; s.usesLeft == 0 {
			s.compiled = nil
		}
	}
	return ver
}

// Versions lists the CRD's versions, sorted.
func (d *Definition) Versions() []string {
	out := make([]string, 0, len(d.versions))
	for v := range d.versions {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

// build files the run's CRDs by the group their names say, unread.
func build(ctx *checks.Context) *Set {
	s := &Set{byGroup: map[string][]*manifest.Object{}, groups: map[string]*groupCRDs{}}
	for _, o := range ctx.ByKind("CustomResourceDefinition") {
		if !strings.HasPrefix(o.APIVersion, "apiextensions.k8s.io/") {
			continue
		}
		if _, group, ok := strings.Cut(o.Name, "."); ok && group != "" {
			s.byGroup[group] = append(s.byGroup[group], o)
		}
	}
	if len(s.byGroup) == 0 {
		return s
	}
	s.uses = map[string]int{}
	for _, o := range ctx.Objects() {
		if IsCustomResource(o) {
			group, version, _ := strings.Cut(o.APIVersion, "/")
			s.uses[usesKey(group, o.Kind, version)]++
		}
	}
	return s
}

// read reads a CRD document: from the text the parser kept when it
// skipped the spec (or reads again from the file), its names, scope and versions without their schemas
// when the text is laid out as generators write it (readNames), else the
// whole document.
func read(o *manifest.Object) *Definition {
	if o.SpecSkipped && o.APIVersion == "apiextensions.k8s.io/v1" {
		text, err := o.CRDSource()
		if err != nil {
			return &Definition{Object: o, Err: err, versions: map[string]*versionSlot{}}
		}
		if d := readNames(o, text); d != nil {
			return d
		}
	}
	return readWhole(o)
}

// readWhole decodes a whole CRD document, every version's schema with it.
func readWhole(o *manifest.Object) *Definition {
	d := &Definition{Object: o, versions: map[string]*versionSlot{}}
	crd, beta, err := decodeWhole(o)
	if err != nil {
		d.Err = err
		return d
	}
	d.Group, d.Kind, d.Plural = crd.Spec.Group, crd.Spec.Names.Kind, crd.Spec.Names.Plural
	d.Namespaced = crd.Spec.Scope != apiextensionsv1.ClusterScoped
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		ver := &versionSlot{Served: v.Served}
		schema := v.Schema
		if schema == nil {
			schema = beta
		}
		if schema != nil && schema.OpenAPIV3Schema != nil {
			props := schema.OpenAPIV3Schema
			ver.schema = func() (*apiextensions.JSONSchemaProps, error) { return internal(props) }
		}
		d.versions[v.Name] = ver
	}
	return d
}

// decodeWhole decodes a CRD document, and a v1beta1 CRD's one schema for
// every version (spec.validation; nil when it has none).
func decodeWhole(o *manifest.Object) (*apiextensionsv1.CustomResourceDefinition, *apiextensionsv1.CustomResourceValidation, error) {
	var j []byte
	var err error
	if o.SpecSkipped {
		var text []byte
		if text, err = o.CRDSource(); err == nil {
			j, err = sigsyaml.YAMLToJSON(text)
		}
	} else {
		j, err = o.JSON()
	}
	var crd apiextensionsv1.CustomResourceDefinition
	var beta struct { // v1beta1's one schema and version for every version
		Spec struct {
			Validation *apiextensionsv1.CustomResourceValidation `json:"validation"`
			Version    string                                    `json:"version"`
		} `json:"spec"`
	}
	if err == nil {
		err = sigsjson.UnmarshalCaseSensitivePreserveInts(j, &crd)
	}
	if err == nil && o.APIVersion != "apiextensions.k8s.io/v1" {
		err = sigsjson.UnmarshalCaseSensitivePreserveInts(j, &beta)
	}
	if len(crd.Spec.Versions) == 0 && beta.Spec.Version != "" {
		crd.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{{Name: beta.Spec.Version, Served: true}}
	}
	if err != nil {
		return nil, nil, err
	}
	return &crd, beta.Spec.Validation, nil
}

// compile builds the version's structural schema and validators. The
// first compile hands s's schema source over for one that reads the CRD
// again (its text may be let go, and the source holds it), should a
// later use compile it again.
func (s *versionSlot) compile(crd *manifest.Object, name string) *Version {
	v := &Version{Served: s.Served}
	if s.schema == nil {
		return v
	}
	schema, err := s.schema()
	s.schema = func() (*apiextensions.JSONSchemaProps, error) {
		again := read(crd)
		if again.Err != nil {
			return nil, again.Err
		}
		if s := again.versions[name]; s != nil && s.schema != nil {
			return s.schema()
		}
		return nil, nil
	}
	if err != nil {
		v.Err = err
		return v
	}
	props := schema
	if props == nil {
		return v
	}
	st, err := structuralschema.NewStructural(props)
	if err != nil {
		v.Err = err
		return v
	}
	if errs := structuralschema.ValidateStructural(nil, st); len(errs) > 0 {
		v.Err = errors.New("the schema is not structural: " + errs.ToAggregate().Error())
		return v
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		v.Err = err
		return v
	}
	v.Structural, v.validator = st, validator
	v.cel = schemacel.NewValidator(st, true, celconfig.PerCallLimit)
	return v
}

// internal converts a v1 schema to the internal types (nil stays nil).
func internal(schema *apiextensionsv1.JSONSchemaProps) (*apiextensions.JSONSchemaProps, error) {
	if schema == nil {
		return nil, nil
	}
	props := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(schema, props, nil); err != nil {
		return nil, err
	}
	return props, nil
}

// ApplyDefaults sets the schema's defaults in u, a custom resource of this
// version, as the API server does when it decodes one (admission policies
// see it defaulted). Nothing happens when the version has no usable schema.
func (v *Version) ApplyDefaults(u map[string]any) {
	if v != nil && v.Structural != nil {
		structuraldefaulting.Default(u, v.Structural)
	}
}

// Violation is one thing the API server refuses in a custom resource.
type Violation struct {
	// Field is the path of the field at fault, as the API server writes it
	// ("spec.items[0].name"); "" for the object.
	Field string
	// Message is the API server's message, the field first.
	Message string
}

// Validate returns what the API server refuses in u, a custom resource of
// this version, on create: unknown fields (as kubectl's strict field
// validation reports them), then, with defaults applied, the schema, the
// list types and the x-kubernetes-validations rules.
func (v *Version) Validate(ctx context.Context, u map[string]any) []Violation {
	var out []Violation
	unknown := pruning.PruneWithOptions(u, v.Structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	sort.Strings(unknown)
	for _, p := range unknown {
		out = append(out, Violation{Field: p, Message: "unknown field \"" + p + "\": the CRD's schema has no such field (kubectl's strict field validation refuses it)"})
	}
	structuraldefaulting.Default(u, v.Structural)
	var errs field.ErrorList
	errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u, v.validator)...)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, v.Structural, u)...)
	if v.cel != nil {
		celErrs, _ := v.cel.Validate(ctx, nil, v.Structural, u, nil, costBudget)
		errs = append(errs, celErrs...)
	}
	for _, e := range errs {
		out = append(out, Violation{Field: e.Field, Message: e.Error()})
	}
	return out
}
