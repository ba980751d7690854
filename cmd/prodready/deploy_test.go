package main

import (
	"bytes"
	"github.com/spf13/pflag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prodready/prodready/cmd/internal/cli"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// TestDeployHasNoFindings runs what CI runs: every default rule over
// deploy/, failing on any finding of any severity.
func TestDeployHasNoFindings(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"check", "--fail-on", "info", "../../deploy"}, nil, &out, &errb); code != cli.ExitOK {
		t.Fatalf("prodready check --fail-on info deploy/: exit %d\n%s%s", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "0 errors, 0 warnings, 0 info") {
		t.Errorf("output:\n%s", out.String())
	}
}

// deployObjects decodes every document of deploy/base strictly into its
// Kubernetes type (an unknown or misspelt field is an error), by kind.
func deployObjects(t *testing.T) map[string][]any {
	t.Helper()
	files, err := filepath.Glob("../../deploy/base/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/base (%v)", err)
	}
	out := map[string][]any{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(data), -1) {
			var meta struct{ Kind string }
			if err := yaml.Unmarshal([]byte(doc), &meta); err != nil || meta.Kind == "" {
				t.Fatalf("%s: a document without kind (%v)", f, err)
			}
			var obj any
			switch meta.Kind {
			case "Namespace":
				obj = &corev1.Namespace{}
			case "LimitRange":
				obj = &corev1.LimitRange{}
			case "ResourceQuota":
				obj = &corev1.ResourceQuota{}
			case "ServiceAccount":
				obj = &corev1.ServiceAccount{}
			case "ConfigMap":
				obj = &corev1.ConfigMap{}
			case "Service":
				obj = &corev1.Service{}
			case "Deployment":
				obj = &appsv1.Deployment{}
			case "PodDisruptionBudget":
				obj = &policyv1.PodDisruptionBudget{}
			case "NetworkPolicy":
				obj = &networkingv1.NetworkPolicy{}
			case "Kustomization":
				continue
			default:
				t.Fatalf("%s: unexpected kind %s", f, meta.Kind)
			}
			if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
				t.Fatalf("%s: %s: %v", f, meta.Kind, err)
			}
			out[meta.Kind] = append(out[meta.Kind], obj)
		}
	}
	return out
}

// TestDeployManifests checks what the rules do not: that the Deployment
// runs prodready serve with flags and environment it really has, secrets
// as mounted files, and the hardening the namespace's restricted level and
// the docs promise.
func TestDeployManifests(t *testing.T) {
	objs := deployObjects(t)
	if len(objs["Deployment"]) != 1 || len(objs["ConfigMap"]) != 1 {
		t.Fatalf("want one Deployment and one ConfigMap, got %d and %d", len(objs["Deployment"]), len(objs["ConfigMap"]))
	}
	d := objs["Deployment"][0].(*appsv1.Deployment)
	cm := objs["ConfigMap"][0].(*corev1.ConfigMap)
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Errorf("replicas = %v, want 3", d.Spec.Replicas)
	}
	ps := d.Spec.Template.Spec
	var keys []string
	for _, c := range ps.TopologySpreadConstraints {
		keys = append(keys, c.TopologyKey)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != "kubernetes.io/hostname,topology.kubernetes.io/zone" {
		t.Errorf("topology keys %v", keys)
	}
	if ps.AutomountServiceAccountToken == nil || *ps.AutomountServiceAccountToken {
		t.Error("the pod mounts a ServiceAccount token")
	}
	if len(ps.Containers) != 1 {
		t.Fatalf("%d containers", len(ps.Containers))
	}
	c := ps.Containers[0]
	if c.ReadinessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.ReadinessProbe.HTTPGet.Path != "/readyz" ||
		c.LivenessProbe == nil || c.LivenessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Error("probes: want readiness /readyz and liveness /healthz")
	}
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil || c.Lifecycle.PreStop.Exec != nil {
		t.Fatal("preStop: want the sleep action (the image has no shell)")
	}
	sc := c.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != 65532 || sc.RunAsGroup == nil || *sc.RunAsGroup != 65532 ||
		sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("container securityContext is not the full hardening: %+v", sc)
	}
	if _, ok := c.Resources.Requests[corev1.ResourceMemory]; !ok {
		t.Error("no memory request")
	}
	if _, ok := c.Resources.Limits[corev1.ResourceMemory]; !ok {
		t.Error("no memory limit")
	}
	// GOMEMLIMIT (in MiB) sits a little under the memory limit: near the
	// heap's limit the collector works harder, and the binary's pages and
	// the runtime's own memory need the rest.
	memLimit := c.Resources.Limits[corev1.ResourceMemory]
	goMemLimit := -1.0
	for _, e := range c.Env {
		if e.Name == "GOMEMLIMIT" {
			if n, err := strconv.Atoi(strings.TrimSuffix(e.Value, "MiB")); err == nil && strings.HasSuffix(e.Value, "MiB") {
				goMemLimit = float64(n << 20)
			}
		}
	}
	if share := goMemLimit / float64(memLimit.Value()); share < 0.8 || share > 0.95 {
		t.Errorf("GOMEMLIMIT is %.0f bytes, %.0f%% of the %s memory limit; want 80-95%% of it, in MiB", goMemLimit, 100*share, memLimit.String())
	}
	for _, e := range c.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			t.Errorf("env %s comes from a Secret; mount it as a file", e.Name)
		}
	}

	// The flags and environment variables exist in `prodready serve`, and
	// the flagged secret files lie in mounted Secret volumes.
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	addServeFlags(fs)
	envNames := map[string]bool{}
	for _, h := range serveHosts {
		h(fs)
	}
	fs.VisitAll(func(f *pflag.Flag) {
		if m := regexp.MustCompile(`env ([A-Z_]+)`).FindStringSubmatch(f.Usage); m != nil {
			envNames[m[1]] = true
		}
	})
	for k := range cm.Data {
		if !envNames[k] {
			t.Errorf("ConfigMap key %s is no environment variable prodready serve reads", k)
		}
	}
	secretDirs := map[string]bool{}
	for _, v := range ps.Volumes {
		if v.Secret == nil {
			continue
		}
		for _, m := range c.VolumeMounts {
			if m.Name == v.Name && m.ReadOnly {
				secretDirs[m.MountPath] = true
			}
		}
	}
	if len(c.Args) == 0 || c.Args[0] != "serve" {
		t.Fatalf("args %v, want serve first", c.Args)
	}
	for _, a := range c.Args[1:] {
		name, value, ok := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !ok || fs.Lookup(name) == nil {
			t.Errorf("arg %q is not a --flag=value of prodready serve", a)
			continue
		}
		if strings.HasSuffix(name, "-file") && !secretDirs[filepath.Dir(value)] {
			t.Errorf("%s=%s is not in a mounted Secret volume", name, value)
		}
	}
	if len(secretDirs) == 0 {
		t.Error("no Secret volume mounted")
	}
	// The app's shutdown grace fits between the preStop sleep and the kill.
	grace := envDurationFrom(t, cm.Data["PRODREADY_SHUTDOWN_GRACE"])
	if ps.TerminationGracePeriodSeconds == nil || float64(*ps.TerminationGracePeriodSeconds) <= float64(c.Lifecycle.PreStop.Sleep.Seconds)+grace {
		t.Errorf("terminationGracePeriodSeconds %v is not above preStop sleep %d s + shutdown grace %.0f s", ps.TerminationGracePeriodSeconds, c.Lifecycle.PreStop.Sleep.Seconds, grace)
	}
}

func envDurationFrom(t *testing.T, s string) float64 {
	t.Helper()
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		t.Fatalf("PRODREADY_SHUTDOWN_GRACE %q does not parse", s)
	}
	return d.Seconds()
}

// kustomizeBuild renders the kustomization in dir (under deploy/) into
// objects by kind and name.
func kustomizeBuild(t *testing.T, dir string) map[string]map[string]map[string]any {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), filepath.Join("..", "..", "deploy", dir))
	if err != nil {
		t.Fatalf("kustomize build deploy/%s: %v", dir, err)
	}
	out := map[string]map[string]map[string]any{}
	for _, r := range m.Resources() {
		obj, err := r.Map()
		if err != nil {
			t.Fatal(err)
		}
		if out[r.GetKind()] == nil {
			out[r.GetKind()] = map[string]map[string]any{}
		}
		out[r.GetKind()][r.GetName()] = obj
	}
	return out
}

// field walks obj along path (map keys, or list indexes as ints).
func field(obj any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := obj.(map[string]any)
			obj = m[k]
		case int:
			l, _ := obj.([]any)
			if k >= len(l) {
				return nil
			}
			obj = l[k]
		}
	}
	return obj
}

// TestDeployQueue: the base runs 3 replicas on a 3-node NATS JetStream
// cluster (PDB, spread over nodes, config in a ConfigMap) that every replica
// reaches; the single overlay runs one replica with the embedded server on
// a volume and no cluster.
func TestDeployQueue(t *testing.T) {
	base := kustomizeBuild(t, "base")
	sts := base["StatefulSet"]["nats"]
	if sts == nil {
		t.Fatal("deploy/base has no NATS StatefulSet")
	}
	if r := field(sts, "spec", "replicas"); r != 3 && r != int64(3) && r != float64(3) {
		t.Errorf("NATS replicas %v, want 3", r)
	}
	if field(sts, "spec", "template", "spec", "topologySpreadConstraints", 0, "topologyKey") != "kubernetes.io/hostname" {
		t.Error("NATS pods are not spread over nodes")
	}
	if base["PodDisruptionBudget"]["nats"] == nil || base["ConfigMap"]["nats-config"] == nil || base["Service"]["nats-headless"] == nil {
		t.Error("NATS needs its PodDisruptionBudget, ConfigMap and headless Service")
	}
	if conf, _ := field(base["ConfigMap"]["nats-config"], "data", "nats.conf").(string); !strings.Contains(conf, "jetstream") || strings.Count(conf, "nats-headless") != 3 {
		t.Errorf("nats.conf does not cluster 3 JetStream nodes:\n%s", conf)
	}
	cm := base["ConfigMap"]["prodready"]
	if field(cm, "data", "PRODREADY_NATS_URL") != "nats://nats:4222" || field(base["Deployment"]["prodready"], "spec", "replicas") == nil {
		t.Errorf("the replicas are not pointed at the cluster: %v", field(cm, "data"))
	}
	egress, _ := field(base["NetworkPolicy"]["prodready"], "spec", "egress").([]any)
	reaches := false
	for _, e := range egress {
		if p := field(e, "ports", 0, "port"); p == 4222 || p == int64(4222) || p == float64(4222) {
			reaches = true
		}
	}
	if !reaches {
		t.Error("prodready's NetworkPolicy lets no traffic out to NATS")
	}

	single := kustomizeBuild(t, "overlays/single")
	for kind, names := range single {
		for name := range names {
			if strings.HasPrefix(name, "nats") {
				t.Errorf("the single overlay keeps %s %s", kind, name)
			}
		}
	}
	d := single["Deployment"]["prodready"]
	if r := field(d, "spec", "replicas"); r != 1 && r != int64(1) && r != float64(1) {
		t.Errorf("single overlay: replicas %v", r)
	}
	if field(d, "spec", "strategy", "type") != "Recreate" {
		t.Error("single overlay: two pods could share the JetStream volume during a rollout")
	}
	data := field(single["ConfigMap"]["prodready"], "data").(map[string]any)
	if _, ok := data["PRODREADY_NATS_URL"]; ok || data["PRODREADY_DATA_DIR"] != "/var/lib/prodready" {
		t.Errorf("single overlay: not the embedded server on the volume: %v", data)
	}
	if single["PersistentVolumeClaim"]["prodready-data"] == nil {
		t.Error("single overlay: no volume for the JetStream files")
	}
}
