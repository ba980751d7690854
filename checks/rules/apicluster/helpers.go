package apicluster

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

// groupVersion splits an apiVersion into group and version ("v1" → "", "v1").
func groupVersion(apiVersion string) (group, version string) {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i], apiVersion[i+1:]
	}
	return "", apiVersion
}

// lifecycle is when a built-in apiVersion/kind was deprecated and is
// removed (minor versions of Kubernetes 1.x; 0 when never), and what
// replaces it.
type lifecycle struct {
	Deprecated, Removed int
	Replacement         schema.GroupVersionKind
}

// staticLifecycles covers API versions that k8s.io/api no longer
// carries (Kubernetes deprecation guide).
var staticLifecycles = map[string]lifecycle{
	"autoscaling/v2beta1/HorizontalPodAutoscaler":           {22, 25, schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}},
	"autoscaling/v2beta2/HorizontalPodAutoscaler":           {23, 26, schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}},
	"apiextensions.k8s.io/v1beta1/CustomResourceDefinition": {16, 22, schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}},
	"apiregistration.k8s.io/v1beta1/APIService":             {19, 22, schema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"}},
	"rbac.authorization.k8s.io/v1alpha1/Role":               {17, 22, schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"}},
	"rbac.authorization.k8s.io/v1alpha1/ClusterRole":        {17, 22, schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}},
	"rbac.authorization.k8s.io/v1alpha1/RoleBinding":        {17, 22, schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"}},
	"rbac.authorization.k8s.io/v1alpha1/ClusterRoleBinding": {17, 22, schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"}},
	"settings.k8s.io/v1alpha1/PodPreset":                    {0, 20, schema.GroupVersionKind{}},
	"batch/v2alpha1/CronJob":                                {0, 21, schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "CronJob"}},
}

//go:generate go run ../../internal/apitable/gen

// kind is one group/version/kind that k8s.io/api carries, with the
// lifecycle its type declares (kinds_gen.go, sorted by key).
type kind struct {
	key                 string // apiVersion/kind
	deprecated, removed int    // 1.x minor versions; 0 when never
	replacement         string // apiVersion/kind; empty when none
}

// kindKey is how kinds and migrationTargets name a kind.
func kindKey(gvk schema.GroupVersionKind) string {
	return gvk.GroupVersion().String() + "/" + gvk.Kind
}

// knownKind finds apiVersion/kind among the kinds k8s.io/api carries.
func knownKind(key string) (kind, bool) {
	i, ok := slices.BinarySearchFunc(kinds, key, func(k kind, key string) int { return strings.Compare(k.key, key) })
	if !ok {
		return kind{}, false
	}
	return kinds[i], true
}

// recognizes reports whether k8s.io/api carries gvk.
func recognizes(gvk schema.GroupVersionKind) bool {
	_, ok := knownKind(kindKey(gvk))
	return ok
}

// kindGVK turns an kinds key back into its group, version and kind.
func kindGVK(key string) schema.GroupVersionKind {
	i := strings.LastIndex(key, "/")
	group, version := groupVersion(key[:i])
	return schema.GroupVersionKind{Group: group, Version: version, Kind: key[i+1:]}
}

// lifecycleOf returns the lifecycle of a built-in apiVersion/kind, and
// whether one is known (deprecated or removed at some version).
func lifecycleOf(apiVersion, kind string) (lifecycle, bool) {
	if l, ok := staticLifecycles[apiVersion+"/"+kind]; ok {
		return l, true
	}
	group, version := groupVersion(apiVersion)
	if !kube.BuiltinGroups[group] || kind == "" {
		return lifecycle{}, false
	}
	k, ok := knownKind(kindKey(schema.GroupVersionKind{Group: group, Version: version, Kind: kind}))
	if !ok {
		return lifecycle{}, false
	}
	l := lifecycle{Deprecated: k.deprecated, Removed: k.removed}
	if k.replacement != "" {
		l.Replacement = kindGVK(k.replacement)
	}
	if l.Deprecated == 0 && l.Removed == 0 {
		return l, false
	}
	return l, true
}

// prerelease reports whether a built-in apiVersion is alpha or beta.
var prereleaseRE = regexp.MustCompile(`^v\d+(alpha|beta)\d*$`)

// migration says how to move obj to the replacement version: a fix when
// the object is valid unchanged under it, else what else must change.
func migration(obj *manifest.Object, to schema.GroupVersionKind) (newAPIVersion string, fixable bool, note string) {
	if to.Empty() {
		return "", false, fmt.Sprintf("%s has no replacement: remove it or use what replaces its function", obj.Kind)
	}
	newAPIVersion = to.GroupVersion().String()
	if to.Kind != obj.Kind {
		return newAPIVersion, false, fmt.Sprintf("%s replaces %s: rewrite it as that kind", to.Kind, obj.Kind)
	}
	if obj.Templated || obj.Patch {
		return newAPIVersion, false, ""
	}
	if n := knownChanges(obj, to); n != "" {
		return newAPIVersion, false, n
	}
	if to.Group == "apiregistration.k8s.io" && to.Version == "v1" {
		return newAPIVersion, true, "" // v1 has v1beta1's fields unchanged (kube-aggregator's types are not bundled)
	}
	newTarget := migrationTargets[kindKey(to)]
	if newTarget == nil {
		return newAPIVersion, false, ""
	}
	target := newTarget()
	data, err := yaml.Marshal(obj.Root())
	if err != nil {
		return newAPIVersion, false, ""
	}
	if err := sigsyaml.UnmarshalStrict(data, target); err != nil {
		msg := err.Error()
		msg = strings.TrimPrefix(msg, "error unmarshaling JSON: while decoding JSON: ")
		return newAPIVersion, false, fmt.Sprintf("under %s the object does not decode as written (%q): update those fields too", newAPIVersion, msg)
	}
	return newAPIVersion, true, ""
}

// knownChanges names what must change besides apiVersion for the
// migrations whose new version is stricter than its schema shows.
func knownChanges(obj *manifest.Object, to schema.GroupVersionKind) string {
	switch {
	case to.Group == "apps" && to.Version == "v1":
		if !obj.Has("spec", "selector") {
			return "apps/v1 requires spec.selector (older versions defaulted it from the template labels): add spec.selector.matchLabels with the template's labels, then change apiVersion"
		}
	case to.Group == "policy" && to.Kind == "PodDisruptionBudget":
		if n := obj.Node("spec", "selector"); n != nil && n.Kind == yaml.MappingNode && len(n.Content) == 0 {
			return "under policy/v1 an empty selector selects every pod of the namespace (policy/v1beta1: none): set a selector for the pods it protects, then change apiVersion"
		}
	case to.Group == "networking.k8s.io" && to.Kind == "Ingress":
		return "networking.k8s.io/v1 moves backend.serviceName/servicePort to backend.service.name and backend.service.port.number (or .name), renames spec.backend to spec.defaultBackend and requires pathType on every path"
	case to.Group == "autoscaling" && to.Version == "v2" && strings.HasSuffix(obj.APIVersion, "v2beta1") && obj.Has("spec", "metrics"):
		return "autoscaling/v2 nests metric targets: targetAverageUtilization becomes target: {type: Utilization, averageUtilization: N}, targetAverageValue becomes target: {type: AverageValue, averageValue: V}"
	case to.Group == "apiextensions.k8s.io":
		return "apiextensions.k8s.io/v1 requires a structural openAPIV3Schema in every entry of spec.versions and moves validation, subresources and additionalPrinterColumns into each version"
	case to.Group == "admissionregistration.k8s.io" && to.Version == "v1":
		if ws := obj.Node("webhooks"); ws != nil {
			for _, w := range ws.Content {
				_, se := manifest.MapEntry(w, "sideEffects")
				_, arv := manifest.MapEntry(w, "admissionReviewVersions")
				if se == nil || arv == nil || (se.Value != "None" && se.Value != "NoneOnDryRun") {
					return "admissionregistration.k8s.io/v1 requires sideEffects (None or NoneOnDryRun) and admissionReviewVersions on every webhook"
				}
			}
		}
	case to.Group == "certificates.k8s.io" && to.Version == "v1":
		if !obj.Has("spec", "signerName") {
			return "certificates.k8s.io/v1 requires spec.signerName"
		}
	}
	return ""
}

// flag is one kube-apiserver flag as written.
type flag struct {
	Name, Value string
	// Path is the node path of the flag: the list item ("--flag=v"), the
	// map key (kubeadm v1beta3) or the {name, value} item (kubeadm v1beta4).
	Path manifest.Path
	// ValuePath is the separate list item holding the value
	// ("--audit-log-maxage", "7"), nil when the value is written inline.
	ValuePath manifest.Path
}

// serverFlags is where a kube-apiserver's flags are written in a manifest.
type serverFlags struct {
	// Form is "args" (a container's command/args), "map" (kubeadm
	// extraArgs up to v1beta3) or "list" (kubeadm v1beta4).
	Form  string
	Flags map[string]flag // by name without dashes; the last one wins
	// ListPath is where a new flag goes: the container's command or args,
	// or the kubeadm extraArgs.
	ListPath manifest.Path
	// Anchor is the position that stands for the flags as a whole.
	Anchor manifest.Path
	// Kubeadm is true for a ClusterConfiguration (kubeadm fills in its own
	// defaults, such as NodeRestriction).
	Kubeadm bool
	Label   string // "container kube-apiserver" / "ClusterConfiguration apiServer.extraArgs"
}

// boolFlags are the boolean kube-apiserver flags the rules read.
var boolFlags = map[string]bool{"profiling": true, "anonymous-auth": true}

// serverFlagSets returns every kube-apiserver flag set of obj: the
// kube-apiserver containers of a static pod (or other workload), or the
// apiServer.extraArgs of a kubeadm ClusterConfiguration.
func serverFlagSets(obj *manifest.Object) []*serverFlags {
	if obj.Kind == "ClusterConfiguration" && strings.HasPrefix(obj.APIVersion, "kubeadm.k8s.io/") {
		return []*serverFlags{kubeadmFlags(obj)}
	}
	pt := obj.PodTemplate()
	if pt == nil {
		return nil
	}
	var out []*serverFlags
	for _, c := range pt.Containers() {
		isAPIServer := c.Name == "kube-apiserver"
		if len(c.Command) > 0 && path.Base(c.Command[0]) == "kube-apiserver" {
			isAPIServer = true
		}
		if !isAPIServer {
			continue
		}
		fs := &serverFlags{Form: "args", Flags: map[string]flag{}, Anchor: c.Path, Label: "container " + strconv.Quote(c.Name)}
		read := func(list []string, key string) int {
			n := 0
			for i, a := range list {
				if !strings.HasPrefix(a, "--") {
					continue
				}
				name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
				f := flag{Name: name, Path: c.Path.Child(key, manifest.Index(i))}
				switch {
				case hasValue:
				case boolFlags[name]:
					value = "true" // pflag: a bare boolean flag is true and takes no separate value
				case i+1 < len(list) && !strings.HasPrefix(list[i+1], "-"):
					value = list[i+1] // "--audit-log-path", "/var/log/audit.log"
					f.ValuePath = c.Path.Child(key, manifest.Index(i+1))
				}
				f.Value = value
				fs.Flags[name] = f
				n++
			}
			return n
		}
		inCommand := read(c.Command, "command")
		inArgs := read(c.Args, "args")
		switch {
		case inCommand > 0 && inCommand >= inArgs:
			fs.ListPath = c.Path.Child("command")
		case len(c.Args) > 0 || len(c.Command) == 0:
			fs.ListPath = c.Path.Child("args")
		default:
			fs.ListPath = c.Path.Child("command")
		}
		if inCommand+inArgs > 0 {
			fs.Anchor = fs.ListPath
		}
		out = append(out, fs)
	}
	return out
}

func kubeadmFlags(obj *manifest.Object) *serverFlags {
	at := manifest.Path{"apiServer", "extraArgs"}
	fs := &serverFlags{Flags: map[string]flag{}, ListPath: at, Anchor: at, Kubeadm: true, Label: "ClusterConfiguration apiServer.extraArgs"}
	n := obj.Node(at...)
	switch {
	case n != nil && n.Kind == yaml.MappingNode:
		fs.Form = "map"
		for i := 0; i+1 < len(n.Content); i += 2 {
			name := strings.TrimPrefix(n.Content[i].Value, "--")
			fs.Flags[name] = flag{Name: name, Value: n.Content[i+1].Value, Path: at.Child(n.Content[i].Value)}
		}
	case n != nil && n.Kind == yaml.SequenceNode:
		fs.Form = "list"
		for i, item := range n.Content {
			_, nm := manifest.MapEntry(item, "name")
			_, v := manifest.MapEntry(item, "value")
			if nm == nil {
				continue
			}
			f := flag{Name: strings.TrimPrefix(nm.Value, "--"), Path: at.Child(manifest.Index(i))}
			if v != nil {
				f.Value = v.Value
			}
			fs.Flags[f.Name] = f
		}
	default:
		fs.Form = "map"
		if _, version := groupVersion(obj.APIVersion); version >= "v1beta4" {
			fs.Form = "list"
		}
		fs.Anchor = manifest.Path{"apiServer"}
		if !obj.Has("apiServer") {
			fs.Anchor = nil
		}
	}
	return fs
}

// Set returns the edits that set flag name to value.
func (fs *serverFlags) Set(name, value string) []edit.Op {
	f, ok := fs.Flags[name]
	switch fs.Form {
	case "args":
		if ok && f.ValuePath != nil {
			return []edit.Op{checks.SetOp(f.ValuePath, quote(value))}
		}
		if ok {
			return []edit.Op{checks.SetOp(f.Path, "--"+name+"="+value)}
		}
		return []edit.Op{checks.AppendOp(fs.ListPath, "--"+name+"="+value)}
	case "list":
		if ok {
			return []edit.Op{checks.SetOp(f.Path.Child("value"), quote(value))}
		}
		return []edit.Op{checks.AppendOp(fs.ListPath, "name: "+name+"\nvalue: "+quote(value)+"\n")}
	}
	if ok {
		return []edit.Op{checks.SetOp(f.Path, quote(value))}
	}
	return []edit.Op{checks.SetOp(fs.ListPath.Child(name), quote(value))}
}

// Delete returns the edit that removes flag name.
func (fs *serverFlags) Delete(name string) []edit.Op {
	f, ok := fs.Flags[name]
	if !ok {
		return nil
	}
	if f.ValuePath != nil {
		return []edit.Op{checks.DeleteOp(f.ValuePath), checks.DeleteOp(f.Path)} // the later item first, so the earlier index stays valid
	}
	return []edit.Op{checks.DeleteOp(f.Path)}
}

// At returns the path a finding about flag name points at: the flag, else
// the list that should hold it.
func (fs *serverFlags) At(name string) manifest.Path {
	if f, ok := fs.Flags[name]; ok {
		return f.Path
	}
	return fs.Anchor
}

// quote renders a flag value as a YAML string (kubeadm's extraArgs are
// strings: an unquoted false is a boolean and fails to decode).
func quote(v string) string { return `"` + strings.ReplaceAll(v, `"`, `\"`) + `"` }
