package faulttolerance

import (
	"fmt"
	"math"
	"path"
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
		"A workload that cannot run twice gets the finding without a fix: a single-instance datastore (recognised by its image: redis, mysql, postgres, a *-db name, grafana without an external database, zipkin in memory…, or by the variables of its server, such as PGDATA), an app whose image is known to keep its state in memory or to need to be alone (Alertmanager without --cluster.peer), one that needs sticky sessions no Service gives (socket.io), a Deployment with strategy: Recreate, an operator without leader election, a Deployment that keeps its data in an emptyDir (the directory a data-dir flag or variable names, or its image's known one) or on a ReadWriteOnce claim, or one not in the repository, gets the finding without a fix: more replicas would not be copies of one app. " +
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
	if _, ok := hpaMin(ctx, obj); ok || replicasOverridden(ctx, obj) || !isServing(ctx, src) || kube.LeaderElected(src) {
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
	if why := kube.SingleReason(ctx, src, pt); why != "" {
		f.Message += "; " + why + ": there is no one-click fix (make it run as several first, with its own replication or clustering, leader election, shared state or sticky sessions, or accept the downtime)"
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
			pvc, ok := o.Typed().(*corev1.PersistentVolumeClaim)
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
