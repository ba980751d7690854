package faulttolerance

import (
	"fmt"
	"math"
	"path"
	"slices"
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
		"A single-instance datastore (recognised by its image: redis, mysql, postgres, a *-db name, grafana without an external database, zipkin in memory…), a Deployment that keeps its data in an emptyDir (the directory a data-dir flag or variable names, or its image's known one) or on a ReadWriteOnce claim, or one not in the repository, gets the finding without a fix: more replicas would not be copies of one app. " +
		"Scaling a StatefulSet needs the app's own clustering, so it gets no one-click fix. Parameter minReplicas sets the threshold (default 2).",
	Params:      map[string]any{"minReplicas": 2},
	ParamRanges: map[string]checks.IntRange{"minReplicas": {Min: 2, Max: math.MaxInt32}}, // replicas is an int32
	Check:       checkReplicasTooFew,
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
	if image, ok := datastore(pt); ok && isDeploy {
		f.Message += fmt.Sprintf("; its image %q is a single-instance datastore, so more replicas would be separate databases behind one Service, not copies of one: there is no one-click fix (run it highly available with its own replication, such as an operator or its chart's HA mode, or accept the downtime)", image)
		return []checks.Finding{f}
	}
	// Single-instance stateful apps whose data is in the pod (an emptyDir)
	// or on one node (a ReadWriteOnce claim): more replicas would not be
	// copies of one app, so the finding has no fix (and pdb-missing asks
	// no PDB ahead of it).
	if dir, vol, ok := emptyDirData(pt); ok {
		f.Message += fmt.Sprintf("; its data directory %q is the emptyDir %q, so each replica would keep data of its own (and a restart loses it): there is no one-click fix (move the data to a shared store, then scale)", dir, vol)
		return []checks.Finding{f}
	}
	if claim, known, ok := singleNodeClaim(ctx, src, pt); ok {
		if known {
			f.Message += fmt.Sprintf("; its volume claim %q is ReadWriteOnce (not ReadWriteMany or ReadOnlyMany), so more replicas cannot attach it on other nodes: there is no one-click fix (move the state out or use a shared claim, then scale)", claim)
		} else {
			f.Message += fmt.Sprintf("; its volume claim %q is not in this run, so whether more replicas can attach it on other nodes (ReadWriteMany) is unknown: there is no one-click fix (check the claim's access modes, then scale)", claim)
		}
		return []checks.Finding{f}
	}
	want := 3
	if min > want {
		want = min
	}
	f = f.WithFix(fmt.Sprintf("set replicas: %d", want), checks.SetOp(path, strconv.Itoa(want)))
	// More replicas are what makes spreading and a disruption budget
	// matter: those findings come after this fix, as its message says.
	f.Fix.FollowUps = []string{"spread-missing", "spread-zone-missing", "pdb-missing"}
	return []checks.Finding{f}
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

// datastoreCompanions are the last words of images that work beside a
// datastore without being one: redis-exporter, mysqld-exporter,
// mongo-express, postgres-operator, redis-commander.
var datastoreCompanions = []string{"exporter", "operator", "proxy", "express", "commander", "ui", "admin", "backup", "client", "cli", "agent", "sidecar"}

// datastore reports whether a pod template runs a single-instance
// datastore, and names its image: an image of datastoreImages (also with a
// variant word such as redis-stack or bitnami's postgresql-repmgr), one
// whose name ends in "-db" or "db" (userdb, cart-db), or an app that keeps
// its data in its own pod unless configured otherwise: grafana with no
// external database (GF_DATABASE_TYPE or GF_DATABASE_URL), zipkin with
// in-memory storage (STORAGE_TYPE unset or mem). An image whose last word
// is a companion's (memcached-exporter, mongo-express) is not one.
func datastore(pt *manifest.PodTemplate) (string, bool) {
	for _, c := range pt.Containers() {
		img := kube.ImageBase(c.Image)
		words := strings.Split(img, "-")
		if slices.Contains(datastoreCompanions, words[len(words)-1]) {
			continue
		}
		for _, d := range datastoreImages {
			if img == d || strings.HasPrefix(img, d+"-") || strings.HasSuffix(img, "-"+d) {
				return img, true
			}
		}
		if strings.HasSuffix(img, "-db") || (len(img) > 2 && strings.HasSuffix(img, "db")) {
			return img, true
		}
		switch img {
		case "grafana", "grafana-oss", "grafana-enterprise":
			if env(c, "GF_DATABASE_TYPE") == "" && env(c, "GF_DATABASE_URL") == "" {
				return img + " (with no external database: no GF_DATABASE_TYPE or GF_DATABASE_URL)", true
			}
		case "zipkin", "openzipkin", "zipkin-slim":
			if t := env(c, "STORAGE_TYPE"); t == "" || t == "mem" {
				return img + " (with in-memory storage)", true
			}
		}
	}
	return "", false
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
// cannot follow more replicas onto other nodes: one of the run, in w's
// namespace, whose access modes are neither ReadWriteMany nor ReadOnlyMany
// (known), or one that is not in the run at all (its access modes unknown:
// a claim made by hand or by another tool is ReadWriteOnce more often than
// not, and scaling on a guess could leave pods stuck attaching it).
func singleNodeClaim(ctx *checks.Context, w *manifest.Object, pt *manifest.PodTemplate) (name string, known, ok bool) {
	for _, v := range pt.Spec.Volumes {
		if v.PersistentVolumeClaim == nil {
			continue
		}
		name := v.PersistentVolumeClaim.ClaimName
		found, shared := false, false
		for _, o := range kube.Scoped(ctx, w, ctx.ByKind("PersistentVolumeClaim")) {
			pvc, ok := o.Typed.(*corev1.PersistentVolumeClaim)
			if !ok || o.Name != name {
				continue
			}
			found = true
			for _, m := range pvc.Spec.AccessModes {
				shared = shared || m == corev1.ReadWriteMany || m == corev1.ReadOnlyMany
			}
		}
		if !shared {
			return name, found, true
		}
	}
	return "", false, false
}

// dataDirFlags are command-line flags that name an app's data directory
// (etcd's --data-dir, mysqld's --datadir, Prometheus's --storage.tsdb.path,
// mongod's --dbpath, …), and dataDirEnv environment variables that do.
var (
	dataDirFlags = []string{"--data-dir", "--datadir", "--data-path", "--data.dir", "--data", "--storage.tsdb.path",
		"--storage.path", "--db-path", "--dbpath", "--database-dir", "--state-dir", "--storage-dir"}
	dataDirEnv = []string{"PGDATA", "GF_PATHS_DATA"}
)

// imageDataDirs are the data directories of images that keep their state
// in one folder unless told otherwise.
var imageDataDirs = map[string]string{
	"prometheus": "/prometheus", "jenkins": "/var/jenkins_home", "nexus3": "/nexus-data",
	"grafana": "/var/lib/grafana", "grafana-oss": "/var/lib/grafana", "grafana-enterprise": "/var/lib/grafana",
}

// emptyDirData returns the data directory of a main container and the
// emptyDir volume it is, when the container keeps its data in an emptyDir:
// a writable emptyDir mounted at (or above) the directory a data-dir flag
// or variable of the container names, or at its image's known data
// directory. A scratch emptyDir (/tmp, a cache, a socket directory) is
// none of these, and neither is one an init container fills: it is not
// judged by its path alone.
func emptyDirData(pt *manifest.PodTemplate) (dir, volume string, ok bool) {
	empty := map[string]bool{}
	for _, v := range pt.Spec.Volumes {
		if v.EmptyDir != nil {
			empty[v.Name] = true
		}
	}
	if len(empty) == 0 {
		return "", "", false
	}
	for _, c := range pt.Containers() {
		if c.Init {
			continue
		}
		for _, d := range dataDirs(c) {
			for _, m := range c.VolumeMounts {
				if !empty[m.Name] || m.ReadOnly || m.SubPath != "" || m.SubPathExpr != "" {
					continue
				}
				if under(d, m.MountPath) {
					return d, m.Name, true
				}
			}
		}
	}
	return "", "", false
}

// dataDirs returns the absolute data directories container c is told to
// use (flags, variables), or else its image's known one.
func dataDirs(c manifest.Container) []string {
	var out []string
	argv := append(append([]string{}, c.Command...), c.Args...)
	for i, a := range argv {
		for _, f := range dataDirFlags {
			if v, ok := strings.CutPrefix(a, f+"="); ok {
				out = append(out, v)
			} else if a == f && i+1 < len(argv) {
				out = append(out, argv[i+1])
			}
		}
	}
	for _, e := range c.Env {
		for _, n := range dataDirEnv {
			if e.Name == n && e.Value != "" {
				out = append(out, e.Value)
			}
		}
	}
	if len(out) == 0 {
		if d, ok := imageDataDirs[kube.ImageBase(c.Image)]; ok {
			out = append(out, d)
		}
	}
	abs := out[:0]
	for _, d := range out {
		if strings.HasPrefix(d, "/") {
			abs = append(abs, path.Clean(d))
		}
	}
	return abs
}

// under reports whether dir is mount or inside it.
func under(dir, mount string) bool {
	mount = path.Clean(mount)
	return dir == mount || mount == "/" || strings.HasPrefix(dir, mount+"/")
}
