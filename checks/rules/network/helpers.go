package network

import (
	"encoding/json"
	"path"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks"

	extensionsv1beta1 "k8s.io/api/extensions/v1beta1"
	networkingv1 "k8s.io/api/networking/v1"
	networkingv1beta1 "k8s.io/api/networking/v1beta1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/prodready/prodready/checks/manifest"
)

// section is the catalog section of the network and access family.
const section = "9. Network and access"

// wholeWorkloads is every whole workload of the run (patches and
// placeholder-filled documents left out).
var wholeWorkloads = checks.NewIndex(func(ctx *checks.Context) []*manifest.Object {
	var out []*manifest.Object
	for _, o := range ctx.Workloads() {
		if !o.Patch {
			out = append(out, o)
		}
	}
	return out
})

// ingressBackend is one Service a backend of an Ingress names, with the
// path of the key holding the service name.
type ingressBackend struct {
	Service string
	Path    manifest.Path
}

// ingressPath is one host + path rule of an Ingress.
type ingressPath struct {
	Host     string
	HostPath manifest.Path // rules[i].host
	Path     string        // "" when the rule has no path
	PathPath manifest.Path // rules[i].http.paths[j].path (or the item)
}

// ingress is the part of an Ingress (any apiVersion) the rules read.
type ingress struct {
	ClassName *string
	Backends  []ingressBackend
	Paths     []ingressPath
	// Hosts are the hosts of spec.rules with their paths (empty hosts left out).
	Hosts []ingressPath
	TLS   [][]string // hosts of each spec.tls entry
}

// readIngress reads an Ingress of networking.k8s.io/v1, networking.k8s.io/v1beta1
// or extensions/v1beta1; nil for anything else.
func readIngress(o *manifest.Object) *ingress {
	in := &ingress{}
	rule := func(i int) manifest.Path { return manifest.Path{"spec", "rules", manifest.Index(i)} }
	addHost := func(i int, host string) {
		if host != "" {
			in.Hosts = append(in.Hosts, ingressPath{Host: host, HostPath: rule(i).Child("host")})
		}
	}
	addPath := func(i, j int, host, p string) {
		pp := rule(i).Child("http", "paths", manifest.Index(j))
		if p != "" {
			pp = pp.Child("path")
		}
		in.Paths = append(in.Paths, ingressPath{Host: host, HostPath: rule(i).Child("host"), Path: p, PathPath: pp})
	}
	typed := o.Typed()
	if old, ok := typed.(*extensionsv1beta1.Ingress); ok {
		conv := ingressFromExtensions(old) // the same fields under another group
		if conv == nil {
			return nil
		}
		typed = conv
	}
	switch v := typed.(type) {
	case *networkingv1.Ingress:
		in.ClassName = v.Spec.IngressClassName
		if b := v.Spec.DefaultBackend; b != nil && b.Service != nil {
			in.Backends = append(in.Backends, ingressBackend{b.Service.Name, manifest.Path{"spec", "defaultBackend", "service", "name"}})
		}
		for i, r := range v.Spec.Rules {
			addHost(i, r.Host)
			if r.HTTP == nil {
				continue
			}
			for j, p := range r.HTTP.Paths {
				addPath(i, j, r.Host, p.Path)
				if p.Backend.Service != nil {
					in.Backends = append(in.Backends, ingressBackend{p.Backend.Service.Name, rule(i).Child("http", "paths", manifest.Index(j), "backend", "service", "name")})
				}
			}
		}
		for _, t := range v.Spec.TLS {
			in.TLS = append(in.TLS, t.Hosts)
		}
	case *networkingv1beta1.Ingress:
		in.ClassName = v.Spec.IngressClassName
		if b := v.Spec.Backend; b != nil && b.ServiceName != "" {
			in.Backends = append(in.Backends, ingressBackend{b.ServiceName, manifest.Path{"spec", "backend", "serviceName"}})
		}
		for i, r := range v.Spec.Rules {
			addHost(i, r.Host)
			if r.HTTP == nil {
				continue
			}
			for j, p := range r.HTTP.Paths {
				addPath(i, j, r.Host, p.Path)
				if p.Backend.ServiceName != "" {
					in.Backends = append(in.Backends, ingressBackend{p.Backend.ServiceName, rule(i).Child("http", "paths", manifest.Index(j), "backend", "serviceName")})
				}
			}
		}
		for _, t := range v.Spec.TLS {
			in.TLS = append(in.TLS, t.Hosts)
		}
	default:
		return nil
	}
	return in
}

// ingressClass returns the class an Ingress asks for: spec.ingressClassName,
// else the kubernetes.io/ingress.class annotation, else "".
func ingressClass(o *manifest.Object, in *ingress) string {
	if in.ClassName != nil && *in.ClassName != "" {
		return *in.ClassName
	}
	return o.Annotations["kubernetes.io/ingress.class"]
}

// rbacRules returns the policy rules of a Role or ClusterRole (any
// apiVersion decoded into rbac/v1), and whether obj is one. Aggregated
// ClusterRoles return no rules: the controller fills them in.
func rbacRules(o *manifest.Object) ([]rbacv1.PolicyRule, bool) {
	switch v := o.Typed().(type) {
	case *rbacv1.Role:
		return v.Rules, true
	case *rbacv1.ClusterRole:
		if v.AggregationRule != nil {
			return nil, true
		}
		return v.Rules, true
	}
	return nil, false
}

// eachRBACRule returns a rule's Check that calls check with every policy
// rule of a Role or ClusterRole and its index, and finds nothing on other
// objects.
func eachRBACRule(check func(obj *manifest.Object, i int, r rbacv1.PolicyRule) []checks.Finding) func(*checks.Context, *manifest.Object) []checks.Finding {
	return func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		rules, _ := rbacRules(obj)
		var out []checks.Finding
		for i, r := range rules {
			out = append(out, check(obj, i, r)...)
		}
		return out
	}
}

// has reports whether list holds s.
func has(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// imageRef is a container image reference split into its parts.
type imageRef struct {
	// Name is the repository without tag or digest ("nginx", "gcr.io/p/app").
	Name   string
	Tag    string
	Digest string
	// Registry is the host the image is pulled from (docker.io when the
	// first path component is not a host).
	Registry string
}

// parseImage splits an image reference the way container runtimes do.
func parseImage(image string) imageRef {
	var r imageRef
	s := strings.TrimSpace(image)
	if i := strings.Index(s, "@"); i >= 0 {
		r.Digest = s[i+1:]
		s = s[:i]
	}
	if i := strings.LastIndex(s, ":"); i >= 0 && !strings.Contains(s[i+1:], "/") {
		r.Tag = s[i+1:]
		s = s[:i]
	}
	r.Name = s
	r.Registry = "docker.io"
	if i := strings.Index(s, "/"); i >= 0 {
		first := s[:i]
		if strings.ContainsAny(first, ".:") || first == "localhost" {
			r.Registry = first
		}
	}
	return r
}

// imagePlaceholder reports whether an image reference is filled in by a
// script or template (${VAR}, PROJECT_ID, {{ }}, <image>): any of its parts
// is a placeholder.
func imagePlaceholder(image string) bool {
	if image == "" || manifest.IsPlaceholder(image) || strings.ContainsAny(image, "$<>{}") || dunderRE.MatchString(image) || strings.HasPrefix(image, "ko://") {
		return true
	}
	for _, part := range strings.FieldsFunc(image, func(r rune) bool { return r == '/' || r == ':' || r == '@' }) {
		if manifest.IsPlaceholder(part) {
			return true
		}
	}
	return false
}

// containerImages calls fn for every container (init containers
// included) of a workload that names an image.
func containerImages(obj *manifest.Object, fn func(c manifest.Container)) {
	pt := obj.PodTemplate()
	if pt == nil || obj.Patch {
		return
	}
	for _, c := range pt.AllContainers() {
		if c.Container != nil && c.Image != "" {
			fn(c)
		}
	}
}

// unpinnedImages calls fn for every container image of a workload that is
// not pinned by a digest: placeholders and images whose tag a
// kustomization's images: sets are left to what replaces them.
func unpinnedImages(ctx *checks.Context, obj *manifest.Object, fn func(c manifest.Container, ref imageRef)) {
	containerImages(obj, func(c manifest.Container) {
		if imagePlaceholder(c.Image) {
			return
		}
		ref := parseImage(c.Image)
		if ref.Digest != "" || ctx.KustomizeOverridesImage(obj, ref.Name) {
			return
		}
		fn(c, ref)
	})
}

// serviceAccountName returns the ServiceAccount a workload's pods run as
// ("default" when unset) and the path of the key that names it.
func serviceAccountName(pt *manifest.PodTemplate) (string, manifest.Path) {
	if pt.Spec.ServiceAccountName != "" {
		return pt.Spec.ServiceAccountName, pt.SpecPath.Child("serviceAccountName")
	}
	if pt.Spec.DeprecatedServiceAccount != "" {
		return pt.Spec.DeprecatedServiceAccount, pt.SpecPath.Child("serviceAccount")
	}
	return "default", pt.SpecPath
}

// configStrings reads a list-of-strings parameter from the config only.
// (Config.StringsParam falls back to the rule's default through the
// registry, which a rule variable cannot refer to without an
// initialization cycle; these rules' defaults are empty lists.)
func configStrings(cfg *checks.Config, id, name string) []string {
	if cfg == nil {
		return nil
	}
	switch v := cfg.Rules[id].Params[name].(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	case string:
		if v != "" {
			return []string{v}
		}
	}
	return nil
}

// dunderRE finds __PLACEHOLDER__ values that a script replaces.
var dunderRE = regexp.MustCompile(`__[A-Z0-9_]+__`)

// reservedHost reports whether host is under a name reserved for
// documentation and local use (RFC 2606, RFC 6761: example.com/net/org,
// .example, .test, .invalid, .localhost, and .local), where no public
// certificate can be issued and no real route is claimed.
func reservedHost(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	for _, d := range []string{"example.com", "example.net", "example.org", "example", "test", "invalid", "localhost", "local"} {
		if h == d || strings.HasSuffix(h, "."+d) {
			return true
		}
	}
	return false
}

// ingressFromExtensions converts an extensions/v1beta1 Ingress into the
// networking.k8s.io/v1beta1 type, whose fields and JSON names it shares.
func ingressFromExtensions(old *extensionsv1beta1.Ingress) *networkingv1beta1.Ingress {
	data, err := json.Marshal(old)
	if err != nil {
		return nil
	}
	var out networkingv1beta1.Ingress
	if json.Unmarshal(data, &out) != nil {
		return nil
	}
	return &out
}

// builds maps each kustomization's folder to the folders it includes
// (resources, bases and components that are folders, and the folders of
// the files it lists), directly or through the kustomizations there.
type builds map[string]map[string]bool

// includes reports whether the kustomization of folder outer includes
// folder inner.
func (b builds) includes(outer, inner string) bool { return b[outer][inner] }

// kustomizeBuilds is the run's builds.
var kustomizeBuilds = checks.NewIndex(func(ctx *checks.Context) builds {
	direct := map[string][]string{}
	for _, k := range ctx.Kustomizations() {
		dir := path.Dir(k.File.Path)
		for _, field := range []string{"resources", "bases", "components"} {
			n := k.Node(field)
			if n == nil || n.Kind != yaml.SequenceNode {
				continue
			}
			for _, e := range n.Content {
				if e.Kind != yaml.ScalarNode || e.Value == "" || strings.Contains(e.Value, "://") {
					continue
				}
				p := path.Clean(path.Join(dir, e.Value))
				if ext := path.Ext(p); ext == ".yaml" || ext == ".yml" || ext == ".json" {
					p = path.Dir(p)
				}
				if p != dir {
					direct[dir] = append(direct[dir], p)
				}
			}
		}
	}
	out := builds{}
	for dir := range direct {
		seen := map[string]bool{}
		queue := append([]string(nil), direct[dir]...)
		for len(queue) > 0 {
			d := queue[0]
			queue = queue[1:]
			if seen[d] {
				continue
			}
			seen[d] = true
			queue = append(queue, direct[d]...)
		}
		out[dir] = seen
	}
	return out
})

// quoteAll quotes each of ss (strconv.Quote) and joins them with ", ":
// values from the files, shown inert.
func quoteAll(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
