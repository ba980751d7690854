// Package apitable writes checks/rules/apicluster/kinds_gen.go: every built-in
// group/version/kind that k8s.io/api carries, with the lifecycle its types
// declare (zz_generated.prerelease-lifecycle.go), and constructors for the
// kinds a deprecated one migrates to. Its command is ./gen:
//
//	go generate ./checks/rules/apicluster
//
// The rules used to build a runtime.Scheme of all 42 API group versions
// when they first met an apiVersion. That linked a runtime.Object
// interface table for each of about 300 types, which the Go runtime reads
// at every start, and the scheme cost a megabyte of heap in every run. The
// table it answered from is fixed for a given k8s.io/api version, so it is
// written once, after each change of that version; checks' tests compare
// the file with Generate and the rules' answers with the scheme's.
package apitable

import (
	"bytes"
	"fmt"
	"go/format"
	"maps"
	"reflect"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	admissionregistrationv1alpha1 "k8s.io/api/admissionregistration/v1alpha1"
	admissionregistrationv1beta1 "k8s.io/api/admissionregistration/v1beta1"
	appsv1 "k8s.io/api/apps/v1"
	appsv1beta1 "k8s.io/api/apps/v1beta1"
	appsv1beta2 "k8s.io/api/apps/v1beta2"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	batchv1beta1 "k8s.io/api/batch/v1beta1"
	certificatesv1 "k8s.io/api/certificates/v1"
	certificatesv1alpha1 "k8s.io/api/certificates/v1alpha1"
	certificatesv1beta1 "k8s.io/api/certificates/v1beta1"
	coordinationv1 "k8s.io/api/coordination/v1"
	coordinationv1alpha2 "k8s.io/api/coordination/v1alpha2"
	coordinationv1beta1 "k8s.io/api/coordination/v1beta1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	discoveryv1beta1 "k8s.io/api/discovery/v1beta1"
	eventsv1 "k8s.io/api/events/v1"
	eventsv1beta1 "k8s.io/api/events/v1beta1"
	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	flowcontrolv1beta1 "k8s.io/api/flowcontrol/v1beta1"
	flowcontrolv1beta2 "k8s.io/api/flowcontrol/v1beta2"
	flowcontrolv1beta3 "k8s.io/api/flowcontrol/v1beta3"
	networkingv1 "k8s.io/api/networking/v1"
	networkingv1beta1 "k8s.io/api/networking/v1beta1"
	nodev1 "k8s.io/api/node/v1"
	nodev1beta1 "k8s.io/api/node/v1beta1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	rbacv1 "k8s.io/api/rbac/v1"
	rbacv1beta1 "k8s.io/api/rbac/v1beta1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta1 "k8s.io/api/resource/v1beta1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	schedulingv1 "k8s.io/api/scheduling/v1"
	schedulingv1beta1 "k8s.io/api/scheduling/v1beta1"
	storagev1 "k8s.io/api/storage/v1"
	storagev1alpha1 "k8s.io/api/storage/v1alpha1"
	storagev1beta1 "k8s.io/api/storage/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Output is the generated file's name, in the apicluster folder.
const Output = "kinds_gen.go"

// Scheme returns a scheme of every built-in API group version k8s.io/api
// carries.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		admissionregistrationv1.AddToScheme, admissionregistrationv1alpha1.AddToScheme, admissionregistrationv1beta1.AddToScheme,
		appsv1.AddToScheme, appsv1beta1.AddToScheme, appsv1beta2.AddToScheme,
		autoscalingv1.AddToScheme, autoscalingv2.AddToScheme,
		batchv1.AddToScheme, batchv1beta1.AddToScheme,
		certificatesv1.AddToScheme, certificatesv1alpha1.AddToScheme, certificatesv1beta1.AddToScheme,
		coordinationv1.AddToScheme, coordinationv1alpha2.AddToScheme, coordinationv1beta1.AddToScheme,
		corev1.AddToScheme, discoveryv1.AddToScheme, discoveryv1beta1.AddToScheme,
		eventsv1.AddToScheme, eventsv1beta1.AddToScheme, extensionsv1beta1.AddToScheme,
		flowcontrolv1.AddToScheme, flowcontrolv1beta1.AddToScheme, flowcontrolv1beta2.AddToScheme, flowcontrolv1beta3.AddToScheme,
		networkingv1.AddToScheme, networkingv1beta1.AddToScheme, nodev1.AddToScheme, nodev1beta1.AddToScheme,
		policyv1.AddToScheme, policyv1beta1.AddToScheme, rbacv1.AddToScheme, rbacv1beta1.AddToScheme,
		resourcev1.AddToScheme, resourcev1beta1.AddToScheme, resourcev1beta2.AddToScheme,
		schedulingv1.AddToScheme, schedulingv1beta1.AddToScheme,
		storagev1.AddToScheme, storagev1alpha1.AddToScheme, storagev1beta1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err) // registering generated types fails only on a programming error
		}
	}
	return s
}

// Lifecycle is what a type's generated lifecycle methods say: the 1.x
// minor versions that deprecate and remove it (0: never), and its
// replacement.
type Lifecycle struct {
	Deprecated, Removed int
	Replacement         schema.GroupVersionKind
}

// LifecycleOf reads obj's lifecycle methods, as the API server's own
// deprecation warnings do.
func LifecycleOf(obj runtime.Object) Lifecycle {
	var l Lifecycle
	if d, ok := obj.(interface{ APILifecycleDeprecated() (int, int) }); ok {
		if major, minor := d.APILifecycleDeprecated(); major == 1 {
			l.Deprecated = minor
		}
	}
	if r, ok := obj.(interface{ APILifecycleRemoved() (int, int) }); ok {
		if major, minor := r.APILifecycleRemoved(); major == 1 {
			l.Removed = minor
		}
	}
	if r, ok := obj.(interface {
		APILifecycleReplacement() schema.GroupVersionKind
	}); ok {
		l.Replacement = r.APILifecycleReplacement()
	}
	return l
}

// key is how the table names a kind: apiVersion/kind ("v1/Pod").
func key(gvk schema.GroupVersionKind) string {
	return gvk.GroupVersion().String() + "/" + gvk.Kind
}

// Generate returns the generated file's source.
func Generate() ([]byte, error) {
	s := Scheme()
	known := s.AllKnownTypes()
	byKey := map[string]schema.GroupVersionKind{}
	for gvk := range known {
		byKey[key(gvk)] = gvk
	}
	keys := slices.Sorted(maps.Keys(byKey))

	// The kinds an object may be migrated to: each lifecycle's replacement
	// and the GA versions (v1, v2) of a kind that has a lifecycle.
	targets := map[string]reflect.Type{}
	addTarget := func(gvk schema.GroupVersionKind) {
		if t, ok := known[gvk]; ok {
			targets[key(gvk)] = t
		}
	}
	var b bytes.Buffer
	b.WriteString("// Code generated by go run ../../internal/apitable/gen; DO NOT EDIT.\n\npackage apicluster\n\n")
	fmt.Fprintf(&b, "// kinds lists every group/version/kind k8s.io/api carries, by\n// apiVersion/kind, with its lifecycle.\nvar kinds = []kind{\n")
	for _, k := range keys {
		gvk := byKey[k]
		obj, err := s.New(gvk)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		l := LifecycleOf(obj)
		repl := ""
		if !l.Replacement.Empty() {
			repl = key(l.Replacement)
		}
		fmt.Fprintf(&b, "\t{%q, %d, %d, %q},\n", k, l.Deprecated, l.Removed, repl)
		if l.Deprecated != 0 || l.Removed != 0 {
			addTarget(l.Replacement)
			for _, v := range []string{"v1", "v2"} {
				addTarget(schema.GroupVersionKind{Group: gvk.Group, Version: v, Kind: gvk.Kind})
			}
		}
	}
	b.WriteString("}\n\n")
	for _, extra := range ExtraTargets {
		addTarget(extra)
	}

	imports := map[string]string{}
	for _, t := range targets {
		imports[t.PkgPath()] = importName(t.PkgPath())
	}
	targetKeys := slices.Sorted(maps.Keys(targets))
	b.WriteString("// migrationTargets makes an empty value of each kind an object may be\n// migrated to, by apiVersion/kind.\nvar migrationTargets = map[string]func() any{\n")
	for _, k := range targetKeys {
		t := targets[k]
		fmt.Fprintf(&b, "\t%q: func() any { return new(%s.%s) },\n", k, imports[t.PkgPath()], t.Name())
	}
	b.WriteString("}\n")

	var head bytes.Buffer
	head.WriteString("import (\n")
	for _, p := range slices.Sorted(maps.Keys(imports)) {
		fmt.Fprintf(&head, "\t%s %q\n", imports[p], p)
	}
	head.WriteString(")\n\n")
	src := b.Bytes()
	at := bytes.Index(src, []byte("// kinds"))
	out := append(append(append([]byte{}, src[:at]...), head.Bytes()...), src[at:]...)
	return format.Source(out)
}

// ExtraTargets are migration targets of API versions k8s.io/api no longer
// carries (checks' staticLifecycles): autoscaling/v2beta1 and v2beta2
// HorizontalPodAutoscaler, rbac v1alpha1, batch/v2alpha1 CronJob.
var ExtraTargets = []schema.GroupVersionKind{
	{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"},
	{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"},
	{Group: "batch", Version: "v1", Kind: "CronJob"},
}

// importName is the import name of a k8s.io/api or apimachinery package:
// group and version run together (appsv1), as the rest of checks names them.
func importName(path string) string {
	parts := strings.Split(path, "/")
	if len(parts) < 2 {
		return parts[0]
	}
	name := parts[len(parts)-2] + parts[len(parts)-1]
	if strings.HasPrefix(path, "k8s.io/apimachinery/pkg/apis/meta/") {
		name = "meta" + parts[len(parts)-1]
	}
	return strings.NewReplacer(".", "", "-", "").Replace(name)
}
