package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	yaml "go.yaml.in/yaml/v3"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	networkingv1 "k8s.io/api/networking/v1"
	networkingv1beta1 "k8s.io/api/networking/v1beta1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	sigsjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"
)

// builtin says how a built-in apiVersion/kind is decoded.
type builtin struct {
	newValue func() any
	// strict: the type is this exact version's, so unknown fields are errors.
	// Older versions decoded into a newer type are read leniently: their
	// schema is not the type's, and api-removed reports them anyway.
	strict bool
}

func strictly[T any]() *builtin {
	return &builtin{newValue: func() any { return new(T) }, strict: true}
}
func leniently[T any]() *builtin { return &builtin{newValue: func() any { return new(T) }} }

// builtins maps "apiVersion/Kind" to its Go type.
var builtins = map[string]*builtin{
	"v1/Pod":                   strictly[corev1.Pod](),
	"v1/Service":               strictly[corev1.Service](),
	"v1/ConfigMap":             strictly[corev1.ConfigMap](),
	"v1/Secret":                strictly[corev1.Secret](),
	"v1/Namespace":             strictly[corev1.Namespace](),
	"v1/ServiceAccount":        strictly[corev1.ServiceAccount](),
	"v1/PersistentVolumeClaim": strictly[corev1.PersistentVolumeClaim](),
	"v1/PersistentVolume":      strictly[corev1.PersistentVolume](),
	"v1/LimitRange":            strictly[corev1.LimitRange](),
	"v1/ResourceQuota":         strictly[corev1.ResourceQuota](),
	"v1/ReplicationController": strictly[corev1.ReplicationController](),
	"v1/Endpoints":             strictly[corev1.Endpoints](),

	"apps/v1/Deployment":       strictly[appsv1.Deployment](),
	"apps/v1/StatefulSet":      strictly[appsv1.StatefulSet](),
	"apps/v1/DaemonSet":        strictly[appsv1.DaemonSet](),
	"apps/v1/ReplicaSet":       strictly[appsv1.ReplicaSet](),
	"apps/v1beta1/Deployment":  leniently[appsv1.Deployment](),
	"apps/v1beta1/StatefulSet": leniently[appsv1.StatefulSet](),
	"apps/v1beta2/Deployment":  leniently[appsv1.Deployment](),
	"apps/v1beta2/StatefulSet": leniently[appsv1.StatefulSet](),
	"apps/v1beta2/DaemonSet":   leniently[appsv1.DaemonSet](),
	"apps/v1beta2/ReplicaSet":  leniently[appsv1.ReplicaSet](),

	"extensions/v1beta1/Deployment":    leniently[appsv1.Deployment](),
	"extensions/v1beta1/DaemonSet":     leniently[appsv1.DaemonSet](),
	"extensions/v1beta1/ReplicaSet":    leniently[appsv1.ReplicaSet](),
	"extensions/v1beta1/NetworkPolicy": leniently[networkingv1.NetworkPolicy](),
	"extensions/v1beta1/Ingress":       strictly[extensionsv1beta1.Ingress](),

	"batch/v1/Job":          strictly[batchv1.Job](),
	"batch/v1/CronJob":      strictly[batchv1.CronJob](),
	"batch/v1beta1/CronJob": leniently[batchv1.CronJob](),

	"policy/v1/PodDisruptionBudget":      strictly[policyv1.PodDisruptionBudget](),
	"policy/v1beta1/PodDisruptionBudget": leniently[policyv1.PodDisruptionBudget](),

	"autoscaling/v1/HorizontalPodAutoscaler":      strictly[autoscalingv1.HorizontalPodAutoscaler](),
	"autoscaling/v2/HorizontalPodAutoscaler":      strictly[autoscalingv2.HorizontalPodAutoscaler](),
	"autoscaling/v2beta1/HorizontalPodAutoscaler": leniently[autoscalingv2.HorizontalPodAutoscaler](),
	"autoscaling/v2beta2/HorizontalPodAutoscaler": leniently[autoscalingv2.HorizontalPodAutoscaler](),

	"networking.k8s.io/v1/Ingress":       strictly[networkingv1.Ingress](),
	"networking.k8s.io/v1/NetworkPolicy": strictly[networkingv1.NetworkPolicy](),
	"networking.k8s.io/v1/IngressClass":  strictly[networkingv1.IngressClass](),
	"networking.k8s.io/v1beta1/Ingress":  strictly[networkingv1beta1.Ingress](),

	"rbac.authorization.k8s.io/v1/Role":                    strictly[rbacv1.Role](),
	"rbac.authorization.k8s.io/v1/ClusterRole":             strictly[rbacv1.ClusterRole](),
	"rbac.authorization.k8s.io/v1/RoleBinding":             strictly[rbacv1.RoleBinding](),
	"rbac.authorization.k8s.io/v1/ClusterRoleBinding":      strictly[rbacv1.ClusterRoleBinding](),
	"rbac.authorization.k8s.io/v1beta1/Role":               leniently[rbacv1.Role](),
	"rbac.authorization.k8s.io/v1beta1/ClusterRole":        leniently[rbacv1.ClusterRole](),
	"rbac.authorization.k8s.io/v1beta1/RoleBinding":        leniently[rbacv1.RoleBinding](),
	"rbac.authorization.k8s.io/v1beta1/ClusterRoleBinding": leniently[rbacv1.ClusterRoleBinding](),

	"admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration":      strictly[admissionv1.ValidatingWebhookConfiguration](),
	"admissionregistration.k8s.io/v1/MutatingWebhookConfiguration":        strictly[admissionv1.MutatingWebhookConfiguration](),
	"admissionregistration.k8s.io/v1beta1/ValidatingWebhookConfiguration": leniently[admissionv1.ValidatingWebhookConfiguration](),
	"admissionregistration.k8s.io/v1beta1/MutatingWebhookConfiguration":   leniently[admissionv1.MutatingWebhookConfiguration](),

	"scheduling.k8s.io/v1/PriorityClass": strictly[schedulingv1.PriorityClass](),
	"storage.k8s.io/v1/StorageClass":     strictly[storagev1.StorageClass](),
}

// IsBuiltin reports whether apiVersion/kind is a built-in kind this package
// decodes into a k8s.io/api type.
func IsBuiltin(apiVersion, kind string) bool {
	_, ok := builtins[apiVersion+"/"+kind]
	return ok
}

// decodeTyped sets the typed value (Typed) of built-in kinds. A strict decode failure is a
// schema-invalid problem; the object keeps its node tree (Typed stays nil)
// so position-only rules can still look at it.
func (o *Object) decodeTyped(text []byte) *Problem {
	if prob := o.deferTyped(true, text); prob != nil || o.pending == nil {
		return prob
	}
	return o.decodePending()
}

// pendingDecode is the typed decode ParseDeferred leaves for
// File.DecodePending: the type it decodes into, and the document's JSON
// when it could not be made from the node tree (nil: it is made from the
// tree, packed by then, when decoded).
type pendingDecode struct {
	b    *builtin
	json []byte
}

// deferTyped is decodeTyped's first half: it finds the type the object
// decodes into and, when its JSON cannot be made from the node tree, makes
// it from the text, which is at hand only now. JSON the tree makes is not
// held until the decode (the tree makes it again), unless keepJSON (the
// decode follows at once). An object whose JSON cannot be made is finished
// at once.
func (o *Object) deferTyped(keepJSON bool, text []byte) *Problem {
	b := o.builtinType()
	if b == nil {
		return nil
	}
	buf := jsonBuffers.Get().(*[]byte)
	defer jsonBuffers.Put(buf)
	var j []byte
	fromTree := false
	switch {
	case o.root != nil && keepJSON:
		j, fromTree = appendNodeJSON((*buf)[:0], o.root)
	case o.root != nil:
		fromTree = nodeJSONOK(o.root) // made again from the tree when decoded
	}
	switch {
	case fromTree && !keepJSON:
		o.pending = &pendingDecode{b: b}
	case fromTree:
		o.pending = &pendingDecode{b: b, json: bytes.Clone(j)}
	default:
		var err error
		if o.ListItem != nil {
			// A List's item has no text of its own: its tree, written out.
			text, err = yaml.Marshal(o.root)
		}
		if err == nil {
			j, err = textJSON((*buf)[:0], text)
		}
		if err != nil {
			return o.typedResult(nil, err, o.root, text)
		}
		o.pending = &pendingDecode{b: b, json: bytes.Clone(j)}
	}
	if j != nil && cap(j) <= maxPooledJSON {
		*buf = j[:0]
	}
	return nil
}

// decodePending is decodeTyped's second half: it decodes the JSON
// deferTyped made, or makes it from the node tree (packed by now: its
// arrays are read as they are). The tree is inflated only to place a
// decode error, and let go after.
func (o *Object) decodePending() *Problem {
	p := o.pending
	o.pending = nil
	v := p.b.newValue()
	j := p.json
	if j == nil {
		buf := jsonBuffers.Get().(*[]byte)
		defer jsonBuffers.Put(buf)
		var ok bool
		if j, ok = o.treeJSON((*buf)[:0]); !ok {
			o.Hold()
			defer o.Release()
			return o.typedResult(nil, errTreeJSON, o.Root(), nil)
		}
		if cap(j) <= maxPooledJSON {
			defer func() { *buf = j[:0] }()
		}
	}
	err := decodeJSON(j, v, p.b.strict)
	var root *yaml.Node
	if err != nil {
		o.Hold()
		defer o.Release()
		root = o.Root()
	}
	prob := o.typedResult(v, err, root, nil)
	if err == nil && p.json == nil && o.packed != nil && o.typed != nil && !isConfigMap(v) {
		// Made from the packed tree, so the tree makes it again: DropTyped
		// may let it go. A ConfigMap's values are the tree's strings already.
		o.typed.again = p.b
	}
	return prob
}

func isConfigMap(v any) bool {
	_, ok := v.(*corev1.ConfigMap)
	return ok
}

// typedSlot holds an object's typed value, shared by the object's copies.
// A value made from the packed tree (again set) may be let go (DropTyped)
// and is then decoded again from the tree when read: kept while the object
// is held (HoldTyped) or once it has been read keepAfterReads times
// without, made for that one read otherwise.
type typedSlot struct {
	cur     atomic.Pointer[typedValue]
	holders atomic.Int32
	// unheld counts the reads that decoded the value again while the
	// object was not held: from keepAfterReads on it is kept.
	unheld atomic.Int32
	again  *builtin
	// workload is whether the value has a pod template, and podLabels and
	// podAnnotations are the template's (PodMeta), kept when the value is
	// let go.
	workload                  bool
	podLabels, podAnnotations map[string]string
}

// typedValue is a typed value and the pod template worked out from it.
type typedValue struct {
	v  any
	pt *PodTemplate
}

// setTyped sets the object's typed value (while one goroutine owns it).
func (o *Object) setTyped(v any) {
	s := &typedSlot{}
	t := &typedValue{v: v, pt: podTemplateOf(v)}
	if t.pt != nil {
		s.workload = true
		if t.pt.Meta != nil {
			s.podLabels, s.podAnnotations = t.pt.Meta.Labels, t.pt.Meta.Annotations
		}
	}
	s.cur.Store(t)
	o.typed = s
}

// Typed returns a pointer to the k8s.io/api value for built-in kinds (for
// example *appsv1.Deployment), or to this package's type for a
// custom-resource workload, nil for everything else. Older API versions of
// a workload are decoded into the current type. After DropTyped the value
// is decoded again from the packed tree when read: callers must not change
// it, nor count on two reads returning the same pointer. Safe for
// concurrent use.
func (o *Object) Typed() any {
	if t := o.typedValue(); t != nil {
		return t.v
	}
	return nil
}

// typedValue returns the object's typed value and pod template, decoding
// them again from the packed tree when DropTyped let them go.
func (o *Object) typedValue() *typedValue {
	s := o.typed
	if s == nil {
		return nil
	}
	if t := s.cur.Load(); t != nil || s.again == nil {
		return t
	}
	t := o.decodeAgain(s.again)
	if t == nil || s.holders.Load() == 0 && s.unheld.Add(1) < keepAfterReads {
		return t
	}
	if !s.cur.CompareAndSwap(nil, t) {
		if cur := s.cur.Load(); cur != nil {
			return cur
		}
	}
	return t
}

// keepAfterReads is how many reads of an object that is not held decode
// its typed value again before it is kept: an index built once over every
// workload reads each once, while an object other objects' rules keep
// asking about (a kustomize patch, a ServiceAccount, a RoleBinding) would
// otherwise be decoded once per asker (70% more CPU on the corpus).
const keepAfterReads = 2

// decodeAgain decodes the typed value again from the packed tree, as
// decodePending first did (without a problem then, so none now).
func (o *Object) decodeAgain(b *builtin) *typedValue {
	buf := jsonBuffers.Get().(*[]byte)
	defer jsonBuffers.Put(buf)
	j, ok := o.treeJSON((*buf)[:0])
	if !ok {
		return nil
	}
	if cap(j) <= maxPooledJSON {
		defer func() { *buf = j[:0] }()
	}
	v := b.newValue()
	if decodeJSON(j, v, b.strict) != nil {
		return nil
	}
	finishCustomWorkload(v)
	o.shareMetadataMaps(v)
	return &typedValue{v: v, pt: podTemplateOf(v)}
}

// HoldTyped keeps the object's typed value, once read, until ReleaseTyped
// (a lean run holds the objects of the unit whose rules are running).
func (o *Object) HoldTyped() {
	if s := o.typed; s != nil {
		s.holders.Add(1)
	}
}

// ReleaseTyped ends one HoldTyped; the last one lets the typed value go
// when the packed tree can make it again (DropTyped).
func (o *Object) ReleaseTyped() {
	if s := o.typed; s != nil && s.holders.Add(-1) == 0 {
		o.DropTyped()
	}
}

// DropTyped lets the object's typed value go when the packed tree can make
// it again: read later, it is decoded again from the tree. It does nothing
// for a value the tree cannot make (its JSON needed the source text), for a
// ConfigMap (whose values are the tree's strings already) or for an object
// without one.
func (o *Object) DropTyped() {
	if s := o.typed; s != nil && s.again != nil {
		s.cur.Store(nil)
	}
}

// errTreeJSON is a bug: a tree that made JSON when parsed did not when
// decoded.
var errTreeJSON = errors.New("internal error: the document's JSON could not be made again from its node tree (please report it)")

// treeJSON appends the JSON of the object's node tree, read from the
// packed arrays when it is packed; false when the tree cannot make it
// (see appendNodeJSON).
func (o *Object) treeJSON(buf []byte) ([]byte, bool) {
	if o.root != nil {
		return appendNodeJSON(buf, o.root)
	}
	if o.packed == nil || len(o.packed.nodes) == 0 {
		return nil, false
	}
	j, _, ok := o.packed.appendJSON(buf, 0)
	return j, ok
}

// JSON returns the object's document as the JSON text sigs.k8s.io/yaml
// makes of it (YAML 1.1 scalars): decoded with apimachinery's JSON decoder,
// integers stay int64, as the API server sees them (CEL rules on integer
// fields fail on float64).
func (o *Object) JSON() ([]byte, error) {
	if j, ok := o.treeJSON(nil); ok {
		return j, nil
	}
	root := o.Root()
	if root == nil {
		return nil, errors.New("the document has no content")
	}
	text, err := yaml.Marshal(root)
	if err != nil {
		return nil, err
	}
	return sigsyaml.YAMLToJSON(text)
}

// builtinType returns how a built-in kind or a custom-resource workload
// (customWorkloads) is decoded, or nil for a kind that is not decoded
// (neither, or a SOPS-encrypted Secret).
func (o *Object) builtinType() *builtin {
	key := o.APIVersion + "/" + o.Kind
	bt := builtins[key]
	if bt == nil {
		return customWorkloads[key]
	}
	if o.Kind == "Secret" && o.Node("sops") != nil {
		return nil // SOPS-encrypted: decrypted by the GitOps controller before it is applied
	}
	return bt
}

// typedResult records the outcome of a typed decode into v: the value, or
// what the error means (a placeholder, a kustomize patch, or a schema
// problem placed on root, the object's node tree).
func (o *Object) typedResult(v any, err error, root *yaml.Node, text []byte) *Problem {
	if err == nil {
		finishCustomWorkload(v)
		if cm, ok := v.(*corev1.ConfigMap); ok {
			o.shareConfigMapData(cm)
		}
		o.shareMetadataMaps(v)
		o.setTyped(v)
		return nil
	}
	if o.placeholderCaused(err, root, text) {
		o.Templated = true
		return nil // a placeholder a script or template fills in before applying
	}
	if o.Node("$patch") != nil || hasKey(root, "$patch") {
		o.Patch = true
		return nil // a kustomize strategic-merge patch, not a whole object
	}
	line, col, at, msg := o.locateDecodeError(err, root)
	return &Problem{RuleID: ProblemSchema, Line: line, Column: col, Path: pathTo(root, at), Message: fmt.Sprintf("%s %s does not match the Kubernetes schema: %s", o.APIVersion, o.Kind, msg), Object: o}
}

// shareConfigMapData points a decoded ConfigMap's data values at the same
// text in the object's node tree. Dashboards, scripts and configuration
// files make a ConfigMap hundreds of kilobytes (1.4 MB of the corpus's
// 170), and the decode keeps a copy of each value for the whole run. A
// value is replaced only by an equal string, so the ConfigMap reads the
// same.
func (o *Object) shareConfigMapData(cm *corev1.ConfigMap) {
	share := func(k, v string) {
		if cur, ok := cm.Data[k]; ok && cur == v {
			cm.Data[k] = v
		}
	}
	if len(cm.Data) == 0 {
		return
	}
	if o.root != nil {
		if _, data := MapEntry(o.root, "data"); data != nil && data.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(data.Content); i += 2 {
				share(data.Content[i].Value, data.Content[i+1].Value)
			}
		}
		return
	}
	t := o.packed
	if t == nil || len(t.nodes) == 0 {
		return
	}
	if _, data := t.mapEntry(0, "data"); data >= 0 && t.nodes[data].kind() == yaml.MappingNode {
		c := data + 1
		for j := 0; j+1 < t.nodes[data].children(); j += 2 {
			v := t.skip(c)
			share(t.str(t.nodes[c].value()), t.str(t.nodes[v].value()))
			c = t.skip(v)
		}
	}
}

// objectMetaMaps is the part of metav1.Object that shareMetadataMaps uses.
type objectMetaMaps interface {
	GetLabels() map[string]string
	SetLabels(map[string]string)
	GetAnnotations() map[string]string
	SetAnnotations(map[string]string)
}

// shareMetadataMaps gives a decoded value the object's own Labels and
// Annotations maps where they are equal, so each object holds one of each
// (a small Go map is a few hundred bytes, and a workload has several).
// Nothing writes to either.
func (o *Object) shareMetadataMaps(v any) {
	m, ok := v.(objectMetaMaps)
	if !ok {
		return
	}
	if l := m.GetLabels(); len(l) > 0 && maps.Equal(l, o.Labels) {
		m.SetLabels(o.Labels)
	}
	if a := m.GetAnnotations(); len(a) > 0 && maps.Equal(a, o.Annotations) {
		m.SetAnnotations(o.Annotations)
	}
	if pt := podTemplateOf(v); pt != nil && pt.Meta != nil {
		// A pod template's labels are often the object's own: one map.
		if l := pt.Meta.Labels; len(l) > 0 && maps.Equal(l, o.Labels) {
			pt.Meta.Labels = o.Labels
		}
	}
}

// withArticle puts "a" or "an" before what encoding/json calls a value
// it could not decode ("array", "object", "number 1.5", "string").
func withArticle(what string) string {
	if what != "" && strings.ContainsRune("aeiou", rune(what[0])) {
		return "an " + what
	}
	return "a " + what
}

var (
	unknownFieldRE = regexp.MustCompile(`unknown field "([^"]+)"`)
	duplicateKeyRE = regexp.MustCompile(`key "?([^"]*?)"? already set in map`)
)

// locateDecodeError turns a decode error into a position in the file, the
// node it is at (nil when none is found) and a message a person can act on.
func (o *Object) locateDecodeError(err error, root *yaml.Node) (line, col int, at *yaml.Node, msg string) {
	line, col = o.KindPos()
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &typeErr):
		msg = fmt.Sprintf("%s must be %s, not %s", typeErr.Field, goTypeName(typeErr.Type.String()), withArticle(typeErr.Value))
		at = findFieldOf(root, strings.Split(typeErr.Field, "."), jsonKind(typeErr.Value))
	case unknownFieldRE.MatchString(err.Error()):
		field := unknownFieldRE.FindStringSubmatch(err.Error())[1]
		msg = fmt.Sprintf("unknown field %q", field)
		parts := strings.Split(field, ".")
		if n := findField(root, parts); n != nil && n.Value == parts[len(parts)-1] {
			at = n
		} else {
			at = findKeyAnywhere(root, parts[len(parts)-1])
		}
	case duplicateKeyRE.MatchString(err.Error()):
		key := duplicateKeyRE.FindStringSubmatch(err.Error())[1]
		msg = fmt.Sprintf("duplicate key %q (Kubernetes keeps only one of them)", key)
		at = findDuplicateKey(root, key)
	default:
		s := err.Error()
		if strings.Contains(s, "quantities must match") {
			if n := findBadQuantity(root); n != nil {
				return n.Line, n.Column, n, fmt.Sprintf("%q is not a quantity (like 500m, 128Mi or 2)", n.Value)
			}
		}
		s = strings.TrimPrefix(s, "error unmarshaling JSON: while decoding JSON: ")
		s = strings.TrimPrefix(s, "error converting YAML to JSON: ")
		return line, col, nil, s
	}
	if at != nil {
		line, col = at.Line, at.Column
	}
	return line, col, at, msg
}

// jsonKind returns whether a YAML value is of the kind encoding/json names
// in a type error ("string", "number", "number 1.5", "bool", "array",
// "object"); nil for a kind it does not name.
func jsonKind(what string) func(*yaml.Node) bool {
	what, _, _ = strings.Cut(what, " ")
	switch what {
	case "string":
		return func(v *yaml.Node) bool { return v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" }
	case "number":
		return func(v *yaml.Node) bool {
			return v.Kind == yaml.ScalarNode && (v.ShortTag() == "!!int" || v.ShortTag() == "!!float")
		}
	case "bool":
		return func(v *yaml.Node) bool { return v.Kind == yaml.ScalarNode && v.ShortTag() == "!!bool" }
	case "array":
		return func(v *yaml.Node) bool { return v.Kind == yaml.SequenceNode }
	case "object":
		return func(v *yaml.Node) bool { return v.Kind == yaml.MappingNode }
	}
	return nil
}

// findFieldOf is findField, but of the keys the dotted path names (one in
// each item of a list: every container's ports), the first whose value is
// of the kind fits accepts: the value the decode refused, not the first
// container's when it is the second's. With no such key, or fits nil, it
// is findField's.
func findFieldOf(n *yaml.Node, fields []string, fits func(*yaml.Node) bool) *yaml.Node {
	if fits != nil {
		if k := findFitting(n, fields, fits); k != nil {
			return k
		}
	}
	return findField(n, fields)
}

// findFitting returns the first key at the dotted path fields below n
// (through every item of a list) whose value fits accepts, nil if none.
func findFitting(n *yaml.Node, fields []string, fits func(*yaml.Node) bool) *yaml.Node {
	if n == nil || len(fields) == 0 {
		return nil
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if k := findFitting(item, fields, fits); k != nil {
				return k
			}
		}
	case yaml.MappingNode:
		k, v := MapEntry(n, fields[0])
		if k == nil {
			if len(fields) > 1 && fields[0] != "" && fields[0][0] >= 'A' && fields[0][0] <= 'Z' {
				return findFitting(n, fields[1:], fits) // an embedded Go struct (VolumeSource): not in the YAML
			}
			return nil
		}
		if len(fields) == 1 {
			if fits(v) {
				return k
			}
			return nil
		}
		return findFitting(v, fields[1:], fits)
	}
	return nil
}

// pathTo returns the path from root to node at, a key of a mapping or an
// item of a list below it (a value names its key's path); nil when at is
// nil or not below root.
func pathTo(root, at *yaml.Node) Path {
	if at == nil {
		return nil
	}
	var walk func(n *yaml.Node, p Path) (Path, bool)
	walk = func(n *yaml.Node, p Path) (Path, bool) {
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				kp := append(slices.Clip(p), k.Value)
				if k == at || v == at {
					return kp, true
				}
				if found, ok := walk(v, kp); ok {
					return found, true
				}
			}
		case yaml.SequenceNode:
			for i, item := range n.Content {
				ip := append(slices.Clip(p), strconv.Itoa(i))
				if item == at {
					return ip, true
				}
				if found, ok := walk(item, ip); ok {
					return found, true
				}
			}
		}
		return nil, false
	}
	if root == nil {
		return nil
	}
	p, _ := walk(root, nil)
	return p
}

// goTypeName shortens Go type names in messages: "int32" → "an integer".
func goTypeName(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case t == "string":
		return "a string"
	case t == "bool":
		return "a boolean (true or false)"
	case strings.HasPrefix(t, "map"), strings.HasPrefix(t, "struct"), strings.Contains(t, "."):
		return "a mapping (" + t + ")"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	}
	return t
}

// textJSON appends to buf the JSON that sigs.k8s.io/yaml makes of a
// document's text (YAML 1.1 scalars, duplicate keys refused): the slow
// path, for what appendNodeJSON cannot write from the node tree.
func textJSON(buf []byte, text []byte) ([]byte, error) {
	j, err := sigsyaml.YAMLToJSONStrict(text)
	if err != nil {
		return nil, err
	}
	return append(buf, j...), nil
}

// decodeJSON decodes a document's JSON into v as the API server does:
// case-sensitive, through sigs.k8s.io/json, refusing unknown fields when
// strict.
func decodeJSON(j []byte, v any, strict bool) error {
	if !strict {
		return sigsjson.UnmarshalCaseSensitivePreserveInts(j, v)
	}
	strictErrs, err := sigsjson.UnmarshalStrict(j, v)
	if err != nil {
		return err
	}
	if len(strictErrs) > 0 {
		return strictErrs[0]
	}
	return nil
}

// jsonBuffers hold the buffers an object's JSON is written into on its way
// to the typed decode: one object after another, so the JSON is no garbage.
var jsonBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxPooledJSON bounds a pooled JSON buffer; a larger object's is let go.
const maxPooledJSON = 256 << 10

// findField finds the key node of a dotted field path as encoding/json names
// it (field names only, no sequence indexes): it descends through every item
// of a sequence. The first match in document order wins.
func findField(n *yaml.Node, fields []string) *yaml.Node {
	if n == nil || len(fields) == 0 {
		return nil
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if k := findField(item, fields); k != nil {
				return k
			}
		}
	case yaml.MappingNode:
		k, v := MapEntry(n, fields[0])
		if k == nil {
			if len(fields) > 1 && fields[0] != "" && fields[0][0] >= 'A' && fields[0][0] <= 'Z' {
				return findField(n, fields[1:]) // an embedded Go struct (VolumeSource): not in the YAML
			}
			return nil
		}
		if len(fields) == 1 {
			return k
		}
		if r := findField(v, fields[1:]); r != nil {
			return r
		}
		return k
	}
	return nil
}

// findDuplicateKey returns the second occurrence of key in any mapping.
func findDuplicateKey(n *yaml.Node, key string) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.MappingNode {
		seen := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				if seen {
					return n.Content[i]
				}
				seen = true
			}
		}
	}
	for _, c := range n.Content {
		if r := findDuplicateKey(c, key); r != nil {
			return r
		}
	}
	return nil
}

// findKeyAnywhere returns the first key node named key in document order.
func findKeyAnywhere(n *yaml.Node, key string) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				return n.Content[i]
			}
			if r := findKeyAnywhere(n.Content[i+1], key); r != nil {
				return r
			}
		}
		return nil
	}
	for _, c := range n.Content {
		if r := findKeyAnywhere(c, key); r != nil {
			return r
		}
	}
	return nil
}

// findBadQuantity returns the first scalar under a resource list (requests,
// limits, capacity, hard, …) that does not parse as a quantity.
func findBadQuantity(n *yaml.Node) *yaml.Node {
	var bad *yaml.Node
	walkScalars(n, func(key string, v *yaml.Node) {
		if bad != nil || v.Tag == "!!null" {
			return
		}
		if strings.Contains(key, "/") || key == "cpu" || key == "memory" || key == "storage" || strings.HasPrefix(key, "requests.") || strings.HasPrefix(key, "limits.") || key == "ephemeral-storage" || key == "sizeLimit" {
			if _, err := resource.ParseQuantity(v.Value); err != nil {
				bad = v
			}
		}
	})
	return bad
}
