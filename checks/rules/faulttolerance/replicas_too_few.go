package faulttolerance

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/kube"

	corev1 "k8s.io/api/core/v1"

	"github.com/prodready/prodready/checks/manifest"
)

var replicasTooFew = &checks.Rule{
	ID:       "replicas-too-few",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://learnk8s.io/production-best-practices#application-development",
	Why:      "a serving Deployment or StatefulSet with one replica is down whenever its pod restarts, is evicted or its node fails",
	Help: "Run at least two replicas (or let an HPA scale it). Leader-elected singletons (an arg like --leader-elect) and workloads no Service selects are left alone. " +
		"Scaling a StatefulSet needs the app's own clustering, so it gets no one-click fix. Parameter minReplicas sets the threshold (default 2).",
	Params: map[string]any{"minReplicas": 2},
	Check:  checkReplicasTooFew,
}

func checkReplicasTooFew(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
	isDeploy := obj.LikeKind() == manifest.LikeDeployment // a Rollout and a CloneSet too
	isSTS := obj.LikeKind() == manifest.LikeStatefulSet   // an Advanced StatefulSet too
	src := kube.PodSource(ctx, obj)                       // a Rollout's workloadRef Deployment holds its template
	if (!isDeploy && !isSTS) || src == nil || partial(src) || kube.ReferencingRollout(ctx, obj) != nil {
		return nil // a Deployment a Rollout's workloadRef names: the Rollout's replicas count
	}
	min := ctx.Config.IntParam("replicas-too-few", "minReplicas")
	if min < 2 {
		min = 2
	}
	pt := src.PodTemplate()
	n, set := obj.Replicas()
	if int(n) >= min || (set && n == 0) { // replicas: 0 is scaled down on purpose
		return nil
	}
	if isDeploy && datastore(pt) {
		return nil // a single-instance datastore: more replicas are more databases, not HA
	}
	if _, ok := hpaMin(ctx, obj); ok || replicasOverridden(ctx, obj) || !isServing(ctx, src) || leaderElected(src) {
		return nil
	}
	path := manifest.Path{"spec", "replicas"}
	what := "replicas is unset (1)"
	if set {
		what = fmt.Sprintf("replicas is %d", n)
	}
	f := checks.At(obj, path, fmt.Sprintf("%s is selected by a Service but %s: it is down whenever its pod restarts or its node is drained (run at least %d)", obj.Kind, what, min))
	if isSTS {
		f.Message += "; a StatefulSet needs the app's own clustering before it can scale, so there is no one-click fix"
		return []checks.Finding{f}
	}
	if claim, ok := singleNodeClaim(ctx, src, pt); ok {
		f.Message += fmt.Sprintf("; its volume claim %q is not ReadWriteMany or ReadOnlyMany (or not in this run), so more replicas may not start on other nodes: move the state out or use a shared claim, then scale", claim)
		return []checks.Finding{f}
	}
	want := 3
	if min > want {
		want = min
	}
	return []checks.Finding{f.WithFix(fmt.Sprintf("set replicas: %d", want), checks.SetOp(path, strconv.Itoa(want)))}
}

// leaderElected reports whether a workload runs a leader-elected
// singleton: a container arg or command like --leader-elect (not =false).
func leaderElected(obj *manifest.Object) bool {
	pt := obj.PodTemplate()
	if pt == nil {
		return false
	}
	for _, c := range pt.Containers() {
		for _, e := range c.Env {
			if strings.Contains(strings.ToUpper(e.Name), "LEADER_ELECT") && !strings.EqualFold(e.Value, "false") {
				return true
			}
		}
		for _, a := range append(append([]string{}, c.Command...), c.Args...) {
			for _, word := range strings.Fields(a) {
				w := strings.ToLower(word)
				if strings.Contains(w, "leader-elect") || strings.Contains(w, "leader_elect") || strings.Contains(w, "leaderelect") {
					if !strings.HasSuffix(w, "=false") {
						return true
					}
				}
			}
		}
	}
	return false
}

// datastoreImages are images of single-instance datastores: a Deployment
// running one is a deliberate singleton (three replicas are three separate
// databases behind one Service).
var datastoreImages = []string{"redis", "postgres", "postgresql", "pgvector", "mysql", "mariadb", "mongo", "mongodb", "etcd", "zookeeper",
	"rabbitmq", "elasticsearch", "cassandra", "influxdb", "neo4j", "couchdb", "minio", "nfs-server", "volume-nfs", "registry",
	"bind", "bind9", "named", "memcached", "valkey", "keydb", "clickhouse", "timescaledb", "questdb", "sqlite"}

// datastore reports whether a pod template runs a single-instance
// datastore: an image of datastoreImages, one whose name ends in "-db" or
// "db" (userdb, cart-db), or an app that keeps its data in its own pod
// unless configured otherwise: grafana with no external database
// (GF_DATABASE_TYPE or GF_DATABASE_URL), zipkin with in-memory storage
// (STORAGE_TYPE unset or mem).
func datastore(pt *manifest.PodTemplate) bool {
	for _, c := range pt.Containers() {
		img := kube.ImageBase(c.Image)
		for _, d := range datastoreImages {
			if img == d || strings.HasPrefix(img, d+"-") || strings.HasSuffix(img, "-"+d) {
				return true
			}
		}
		if strings.HasSuffix(img, "-db") || (len(img) > 2 && strings.HasSuffix(img, "db")) {
			return true
		}
		switch img {
		case "grafana", "grafana-oss", "grafana-enterprise":
			if env(c, "GF_DATABASE_TYPE") == "" && env(c, "GF_DATABASE_URL") == "" {
				return true
			}
		case "zipkin", "openzipkin", "zipkin-slim":
			if t := env(c, "STORAGE_TYPE"); t == "" || t == "mem" {
				return true
			}
		}
	}
	return false
}

// env returns the literal value of container c's environment variable
// name, "" when unset or set from a source.
func env(c manifest.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// singleNodeClaim returns a PersistentVolumeClaim the pods mount that
// cannot follow more replicas onto other nodes: one whose access modes in
// the run are neither ReadWriteMany nor ReadOnlyMany, or that is not in
// the run at all.
func singleNodeClaim(ctx *checks.Context, w *manifest.Object, pt *manifest.PodTemplate) (string, bool) {
	for _, v := range pt.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		name := v.PersistentVolumeClaim.ClaimName
		shared := false
		for _, o := range kube.Scoped(ctx, w, ctx.ByKind("PersistentVolumeClaim")) {
			pvc, ok := o.Typed.(*corev1.PersistentVolumeClaim)
			if !ok || o.Name != name {
				continue
			}
			for _, m := range pvc.Spec.AccessModes {
				shared = shared || m == corev1.ReadWriteMany || m == corev1.ReadOnlyMany
			}
		}
		if !shared {
			return name, true
		}
	}
	return "", false
}
