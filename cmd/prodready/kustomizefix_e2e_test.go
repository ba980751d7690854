package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kustomizeShaped is an overlay laid out as argo-cd's HA one is: a base
// Deployment and Service, and an overlay whose strategic-merge patch sets
// replicas and an env var of the base's container (a partial object).
var kustomizeShaped = map[string]string{
	"base/kustomization.yaml": "resources:\n- deploy.yaml\n",
	"base/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app.kubernetes.io/name: web\n" +
		"    app.kubernetes.io/component: server\n    app.kubernetes.io/part-of: shop\nspec:\n  replicas: 1\n" +
		"  selector:\n    matchLabels: {app.kubernetes.io/name: web}\n  template:\n    metadata:\n      labels:\n" +
		"        app.kubernetes.io/name: web\n    spec:\n      containers:\n      - name: web\n        image: nginx:1.27\n" +
		"        ports:\n        - containerPort: 8080\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n" +
		"  selector: {app.kubernetes.io/name: web}\n  ports:\n  - port: 80\n    targetPort: 8080\n",
	"overlays/prod/kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: patch.yaml\n",
	"overlays/prod/patch.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n" +
		"  template:\n    spec:\n      containers:\n      - name: web\n        env:\n        - name: MODE\n          value: prod\n",
}

// TestFixThroughKustomize runs `prodready fix --all` as a process on an
// overlay and its base: the overlay is built as check builds it, the
// replicas finding that the patch sets is fixed in the patch, in place
// (the patch stays the partial object it is: no labels or fields of a
// whole Deployment added), the base's findings are fixed in the base, and
// each fix was verified by building again: after it, check builds the
// overlay and no longer has those findings.
func TestFixThroughKustomize(t *testing.T) {
	repo := writeRepo(t, kustomizeShaped)
	before, _ := checkJSON(t, repo, ".")
	if _, ok := byKey(before)["overlays/prod/patch.yaml:6 replicas-too-few"]; !ok {
		t.Fatalf("check does not map replicas-too-few to the patch's replicas line: %v", keysOf(byKey(before)))
	}
	out, errOut, code := runCLI(t, repo, "fix", "--all", ".")
	if code != 0 {
		t.Fatalf("fix --all exited %d:\n%s\n%s", code, out, errOut)
	}
	patch, _ := os.ReadFile(filepath.Join(repo, "overlays/prod/patch.yaml"))
	want := strings.Replace(kustomizeShaped["overlays/prod/patch.yaml"], "replicas: 1", "replicas: 3", 1)
	if string(patch) != want {
		t.Errorf("the patch after fix --all:\n%s\nwant only its replicas changed:\n%s", patch, want)
	}
	base, _ := os.ReadFile(filepath.Join(repo, "base/deploy.yaml"))
	for _, s := range []string{"allowPrivilegeEscalation: false", "readinessProbe:"} {
		if !strings.Contains(string(base), s) {
			t.Errorf("the base was not fixed (no %q):\n%s", s, base)
		}
	}
	if strings.Contains(string(base), "app.kubernetes.io/component: change-me") || strings.Contains(string(base), "app.kubernetes.io/part-of: change-me") {
		t.Errorf("a placeholder replaced a real label:\n%s", base)
	}
	after, _ := checkJSON(t, repo, ".")
	for _, f := range after {
		switch f.Rule {
		case "render-failed", "replicas-too-few", "privilege-escalation-allowed", "readiness-probe-missing":
			t.Errorf("after fix --all: %s:%d %s %s", f.File, f.Line, f.Rule, f.Message)
		}
	}
}

// TestFixArgoCDHAOverlay runs `prodready fix --all` as a process on
// argo-cd's HA manifests: no patch file of the HA overlay is edited as a
// whole object, no placeholder lands on the component or part-of labels
// the bases set, and every overlay still builds.
func TestFixArgoCDHAOverlay(t *testing.T) {
	if testing.Short() {
		t.Skip("builds argo-cd's overlays with every fix; skipped with -short")
	}
	src := filepath.Join("..", "..", "..", "shared", "corpus", "charts-more", "kustomize", "argo-cd-manifests")
	if _, err := os.Stat(src); err != nil {
		t.Skip("../shared/corpus/charts-more/kustomize/argo-cd-manifests is absent")
	}
	repo := writeRepo(t, nil)
	copyTree(t, src, filepath.Join(repo, "manifests"))
	patches := []string{"manifests/ha/base/overlays/argocd-server-deployment.yaml", "manifests/ha/base/overlays/argocd-repo-server-deployment.yaml",
		"manifests/ha/base/overlays/argocd-application-controller-statefulset.yaml", "manifests/ha/base/controller-deployment/argocd-server-deployment.yaml"}
	was := map[string]string{}
	for _, p := range patches {
		data, _ := os.ReadFile(filepath.Join(repo, p))
		was[p] = string(data)
	}
	if out, errOut, code := runCLI(t, repo, "fix", "--all", "manifests/ha"); code != 0 {
		t.Fatalf("fix --all manifests/ha exited %d:\n%s\n%s", code, out, errOut)
	}
	for _, p := range patches {
		data, _ := os.ReadFile(filepath.Join(repo, p))
		if now := string(data); strings.Contains(now, "change-me") || strings.Count(now, "labels:") > strings.Count(was[p], "labels:") {
			t.Errorf("%s was edited as a whole object:\n%s", p, now)
		}
	}
	fs, _ := checkJSON(t, repo, "manifests/ha")
	for _, f := range fs {
		if f.Rule == "render-failed" && !strings.Contains(f.Message, "dependency redis-ha") {
			t.Errorf("after fix --all: %s:%d %s", f.File, f.Line, f.Message)
		}
	}
}

// sharedBase is a base two overlays build from: dev's patch already sets
// allowPrivilegeEscalation and a CPU request for the container, prod's
// sets neither, so prod's findings on the base's container line are its
// own. prodJSON, when set, makes prod's patch a JSON 6902 one.
func sharedBase(prodJSON bool) map[string]string {
	files := map[string]string{
		"base/kustomization.yaml": "resources:\n- deploy.yaml\n",
		"base/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels:\n    app.kubernetes.io/name: web\nspec:\n" +
			"  replicas: 3\n  selector:\n    matchLabels: {app.kubernetes.io/name: web}\n  template:\n    metadata:\n      labels:\n" +
			"        app.kubernetes.io/name: web\n    spec:\n      containers:\n      - name: web\n        image: ghcr.io/example/web:1.0\n" +
			"        ports:\n        - containerPort: 8080\n",
		"overlays/dev/kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: patch.yaml\n",
		"overlays/dev/patch.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n" +
			"      containers:\n      - name: web\n        securityContext:\n          allowPrivilegeEscalation: false\n" +
			"        resources:\n          requests:\n            cpu: 100m\n",
		"overlays/prod/kustomization.yaml": "resources:\n- ../../base\nnamePrefix: prod-\npatches:\n- path: patch.yaml\n",
		"overlays/prod/patch.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n" +
			"      containers:\n      - name: web\n        env:\n        - name: MODE\n          value: prod\n",
	}
	if prodJSON {
		files["overlays/prod/kustomization.yaml"] = "resources:\n- ../../base\nnamePrefix: prod-\npatches:\n- path: patch.yaml\n  target:\n    kind: Deployment\n    name: web\n"
		files["overlays/prod/patch.yaml"] = "- op: add\n  path: /spec/template/spec/containers/0/env\n  value:\n  - name: MODE\n    value: prod\n"
	}
	return files
}

// TestFixAddsAPatchToTheOverlay runs `prodready fix --all` as a process on
// two overlays of one base. Prod's findings on the base's container line
// (no line of prod sets allowPrivilegeEscalation or the CPU request, and
// editing the base would change what dev builds) are fixed by patches
// added to prod's kustomization.yaml, strategic-merge ones beside its
// strategic-merge patch and JSON 6902 ones beside its JSON 6902 patch;
// the base is not given them; after it both overlays build, prod's
// findings are gone and dev has none it did not have.
func TestFixAddsAPatchToTheOverlay(t *testing.T) {
	for _, tc := range []struct {
		name    string
		json    bool
		want    string // in the entry the fix adds
		entries int    // patches added (0: not counted)
	}{{"strategic-merge", false, "patch: |-\n    apiVersion: apps/v1\n", 1}, {"json6902", true, "patch: |-\n    - op: add\n      path: /spec/template/spec/containers/0/", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			files := sharedBase(tc.json)
			repo := writeRepo(t, files)
			before, _ := checkJSON(t, repo, ".")
			had := map[string]bool{}
			for _, f := range before {
				if strings.HasPrefix(f.File, "overlays/dev/") || strings.Contains(f.Message, "overlays/dev") {
					had[f.Rule] = true
				}
			}
			if out, errOut, code := runCLI(t, repo, "fix", "--all", "."); code != 0 {
				t.Fatalf("fix --all exited %d:\n%s\n%s", code, out, errOut)
			}
			kust, _ := os.ReadFile(filepath.Join(repo, "overlays/prod/kustomization.yaml"))
			if !strings.HasPrefix(string(kust), files["overlays/prod/kustomization.yaml"]) || !strings.Contains(string(kust), tc.want) ||
				!strings.Contains(string(kust), "allowPrivilegeEscalation") || !strings.Contains(string(kust), "100m") {
				t.Errorf("prod's kustomization.yaml after fix --all:\n%s\nwant its entries kept and patches added with %q", kust, tc.want)
			}
			// A strategic-merge overlay gets one patch of the Deployment
			// for its fixes; a JSON 6902 one, one a fix (entries 0).
			if n := strings.Count(string(kust), "patch: |"); tc.entries > 0 && n != tc.entries {
				t.Errorf("prod's kustomization.yaml after fix --all has %d patches added, want %d:\n%s", n, tc.entries, kust)
			}
			if base, _ := os.ReadFile(filepath.Join(repo, "base/deploy.yaml")); strings.Contains(string(base), "allowPrivilegeEscalation") {
				t.Errorf("prod's fix edited the base dev builds from:\n%s", base)
			}
			after, _ := checkJSON(t, repo, ".")
			for _, f := range after {
				switch {
				case f.Rule == "render-failed":
					t.Errorf("after fix --all: %s:%d %s", f.File, f.Line, f.Message)
				case f.Rule == "privilege-escalation-allowed" || f.Rule == "cpu-requests-missing":
					t.Errorf("after fix --all, still: %s:%d %s %s", f.File, f.Line, f.Rule, f.Message)
				case (strings.HasPrefix(f.File, "overlays/dev/") || strings.Contains(f.Message, "overlays/dev")) && !had[f.Rule]:
					t.Errorf("after fix --all, dev has a new finding: %s:%d %s %s", f.File, f.Line, f.Rule, f.Message)
				}
			}
		})
	}
}

// TestFixSaysAWithheldBaseFixOnce runs `prodready fix --all` as a process
// on two overlays of one base: the recommended-labels fix both withhold at
// the same base line (each would write its own prefixed name into the
// base) is said once, as check says the finding once, not once per
// overlay.
func TestFixSaysAWithheldBaseFixOnce(t *testing.T) {
	repo := writeRepo(t, nil)
	copyTree(t, filepath.Join("..", "..", "fixtures", "render", "review", "kustomize"), repo)
	_, errOut, code := runCLI(t, repo, "fix", "--all", ".")
	// Each overlay's fix would write its own name (prod-api, staging-api)
	// into the base.
	const withheld = "base/deployment.yaml:12 recommended-labels-missing: withheld: the overlays that build this line (the overlay overlays/prod, the overlay overlays/staging) would each write it differently"
	if n := strings.Count(errOut, withheld); n != 1 || code != 0 {
		t.Errorf("fix exited %d and said the withheld fix %d times, want once:\n%s", code, n, errOut)
	}

	// A fix of a base line both overlays render is one fix: listed and
	// counted once, as check reports its finding once.
	fresh := writeRepo(t, nil)
	copyTree(t, filepath.Join("..", "..", "fixtures", "render", "review", "kustomize"), fresh)
	out, errOut, code := runCLI(t, fresh, "fix", "--all", "--dry-run", ".")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	seen := map[string]bool{}
	for _, l := range lines {
		if seen[l] {
			t.Errorf("fix --dry-run lists %q twice:\n%s", l, out)
		}
		seen[l] = true
	}
	if want := fmt.Sprintf("would fix %d findings in 1 file;", len(lines)); code != 0 || !strings.Contains(errOut, want) {
		t.Errorf("fix --dry-run (exit %d) lists %d fixes; its summary should say %q:\n%s", code, len(lines), want, errOut)
	}
}

// TestFixAppliesAnOverlaysLabelsFixInPart runs `prodready fix --all` as a
// process on an overlay whose Deployment lacks the recommended labels.
// The fix writes the name it knows into the base's pod template and
// placeholders on the Deployment's metadata; built again, the finding
// stays, asking for the values only the author knows, with no fix left.
// That is the fix done as far as it goes, as on a plain file, so it is
// applied, not withheld as a fix whose finding stays.
func TestFixAppliesAnOverlaysLabelsFixInPart(t *testing.T) {
	repo := writeRepo(t, overlayBesideItsBase())
	out, errOut, code := runCLI(t, repo, "fix", "--rule", "recommended-labels-missing", ".")
	if code != 0 || strings.Contains(errOut, "withheld") || !strings.Contains(errOut, "fixed 1 finding in 1 file") {
		t.Fatalf("fix exited %d:\n%s\n%s\nwant the labels fix applied", code, out, errOut)
	}
	base, _ := os.ReadFile(filepath.Join(repo, "base/deploy.yaml"))
	for _, want := range []string{"        app.kubernetes.io/name: web\n", "    app.kubernetes.io/instance: change-me # placeholder"} {
		if !strings.Contains(string(base), want) {
			t.Errorf("base/deploy.yaml after fix, want %q:\n%s", want, base)
		}
	}
	after, _ := checkJSON(t, repo, ".")
	var left int
	for _, f := range after {
		if f.Rule == "recommended-labels-missing" {
			left++
			if f.Fix != nil && f.Fix.Withheld == "" && len(f.Fix.Edits) > 0 {
				t.Errorf("after fix, the labels finding still has a fix: %+v", f.Fix)
			}
		}
	}
	if left != 1 {
		t.Errorf("after fix: %d labels findings, want the one asking for the real values", left)
	}
}

// overlayBesideItsBase is an overlay whose base is a folder beside it,
// with one Deployment that has findings and fixes.
func overlayBesideItsBase() map[string]string {
	return map[string]string{
		"overlay/kustomization.yaml": "resources:\n- ../base\nnamespace: shop\n",
		"base/kustomization.yaml":    "resources:\n- deploy.yaml\n",
		"base/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {app: web}\n" +
			"  template:\n    metadata:\n      labels:\n        app: web\n    spec:\n      containers:\n      - name: web\n        image: ghcr.io/example/web:1.0\n",
	}
}

// TestFixOfAnOverlayWritesOnlyTheOverlay runs `prodready fix --all` as a
// process on an overlay named alone, whose base is a folder beside it.
// Fix writes the files it is given, and other overlays may build on that
// base, so the fixes of the base's Deployment are one patch added to the
// overlay's kustomization.yaml (not silently nothing, as when they were
// edits of a file fix does not write); the base is as it was; built
// again, the overlay has none of the findings fixed.
func TestFixOfAnOverlayWritesOnlyTheOverlay(t *testing.T) {
	files := overlayBesideItsBase()
	repo := writeRepo(t, files)
	before, _ := checkJSON(t, repo, "overlay")
	out, errOut, code := runCLI(t, repo, "fix", "--all", "overlay")
	if code != 0 || !strings.Contains(errOut, "fixed ") || strings.Contains(errOut, "nothing to fix") {
		t.Fatalf("fix --all overlay exited %d:\n%s\n%s", code, out, errOut)
	}
	if base, _ := os.ReadFile(filepath.Join(repo, "base/deploy.yaml")); string(base) != files["base/deploy.yaml"] {
		t.Errorf("fix of the overlay edited the base beside it:\n%s", base)
	}
	kust, _ := os.ReadFile(filepath.Join(repo, "overlay/kustomization.yaml"))
	// One patch for the Deployment's first round of fixes; the zone spread
	// the node spread announces comes in the next round, written into that
	// patch (a patch of the kustomization's own text is edited in place),
	// not appended as a second.
	if n := strings.Count(string(kust), "- patch: |"); n != 1 || !strings.HasPrefix(string(kust), files["overlay/kustomization.yaml"]) ||
		!strings.Contains(string(kust), "topologyKey: topology.kubernetes.io/zone") {
		t.Errorf("overlay/kustomization.yaml after fix --all has %d patches, want 1 with the zone spread (its entries kept):\n%s", n, kust)
	}
	after, _ := checkJSON(t, repo, "overlay")
	fixable := map[string]bool{}
	for _, f := range before {
		if f.Fix != nil && f.Fix.Withheld == "" {
			fixable[f.Rule] = true
		}
	}
	for _, f := range after {
		if f.Rule == "render-failed" || (fixable[f.Rule] && f.Rule != "recommended-labels-missing") {
			t.Errorf("after fix --all: %s:%d %s %s", f.File, f.Line, f.Rule, f.Message)
		}
	}
	if len(fixable) < 5 {
		t.Errorf("before fix, check offered fixes for %d rules, want the Deployment's many", len(fixable))
	}
}

// TestFixSaysWhyOneOverlayBuildingALineTwiceWithholdsIt runs `prodready
// fix --all` as a process on one overlay that builds one base twice,
// under two prefixes (kustomize's multibases): the labels fix would write
// each copy's own name into the one base line, so it is withheld, saying
// that this overlay builds the line more than once (it said "the overlays
// that build this line", naming one).
func TestFixSaysWhyOneOverlayBuildingALineTwiceWithholdsIt(t *testing.T) {
	repo := writeRepo(t, map[string]string{
		"kustomization.yaml":      "resources:\n- dev\n- prod\n",
		"dev/kustomization.yaml":  "resources:\n- ../base\nnamePrefix: dev-\n",
		"prod/kustomization.yaml": "resources:\n- ../base\nnamePrefix: prod-\n",
		"base/kustomization.yaml": "resources:\n- pod.yaml\n",
		"base/pod.yaml":           "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n  - name: web\n    image: ghcr.io/example/web:1.0\n",
	})
	_, errOut, code := runCLI(t, repo, "fix", "--rule", "recommended-labels-missing", ".")
	const want = "recommended-labels-missing: withheld: the overlay . builds this line more than once and would write it differently each time"
	if code != 0 || strings.Count(errOut, want) != 1 {
		t.Errorf("fix exited %d; want the labels fix withheld once, saying %q:\n%s", code, want, errOut)
	}
}

// TestFixPatchAppendsOnlyWhatItAdds runs `prodready fix --all` as a
// process on an overlay named alone whose base's Deployment mounts a
// ConfigMap the overlay generates (its name gets a hash and the prefix).
// The read-only root filesystem fix adds a scratch volume as a patch of
// the overlay: a strategic merge adds it to the pod's volumes by name, so
// the patch holds it alone. It held the rendered volumes too, with the
// generated name, which then stayed pinned in the patch: a later change
// of the ConfigMap's data would change its name and leave the Deployment
// mounting one that no longer exists.
func TestFixPatchAppendsOnlyWhatItAdds(t *testing.T) {
	repo := writeRepo(t, map[string]string{
		"overlay/kustomization.yaml": "resources:\n- ../base\nnamePrefix: prod-\nconfigMapGenerator:\n- name: web-config\n  literals:\n  - MODE=prod\n",
		"base/kustomization.yaml":    "resources:\n- deploy.yaml\n",
		"base/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n  selector:\n    matchLabels: {app: web}\n" +
			"  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n        image: ghcr.io/example/web:1.0\n" +
			"        volumeMounts:\n        - name: config\n          mountPath: /etc/web\n      volumes:\n      - name: config\n        configMap:\n          name: web-config\n",
	})
	if out, errOut, code := runCLI(t, repo, "fix", "--rule", "readonly-rootfs-missing", "overlay"); code != 0 || !strings.Contains(errOut, "fixed 1 finding") {
		t.Fatalf("fix exited %d:\n%s\n%s", code, out, errOut)
	}
	kust := readFile(t, filepath.Join(repo, "overlay/kustomization.yaml"))
	if !strings.Contains(kust, "name: tmp") || strings.Contains(kust, "web-config-") || strings.Contains(kust, "name: config") {
		t.Errorf("the patch should add the tmp volume and mount alone, not restate the rendered ones:\n%s", kust)
	}
	after, _ := checkJSON(t, repo, "overlay")
	for _, f := range after {
		if f.Rule == "render-failed" || f.Rule == "readonly-rootfs-missing" {
			t.Errorf("after fix: %s %s", f.key(), f.Message)
		}
	}
}

// TestFixPatchKeepsTheContainersOrder runs `prodready fix --all` as a
// process on an overlay named alone whose base's pod has three
// containers, the third lacking resources. A strategic-merge patch naming
// that container alone made kustomize put it first (another default
// container for kubectl logs and exec), which the build's check saw as
// the first container's args changed, and withheld the fix; the patch now
// names the containers before it, by name alone, and the fix is applied.
func TestFixPatchKeepsTheContainersOrder(t *testing.T) {
	c := func(name, more string) string {
		return "      - name: " + name + "\n        image: ghcr.io/example/" + name + ":1.0\n" + more
	}
	res := "        resources:\n          requests: {cpu: 100m, memory: 64Mi}\n          limits: {memory: 64Mi}\n"
	repo := writeRepo(t, map[string]string{
		"overlay/kustomization.yaml": "resources:\n- ../base\n",
		"base/kustomization.yaml":    "resources:\n- sts.yaml\n",
		"base/sts.yaml": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n  replicas: 3\n  serviceName: db\n  selector:\n    matchLabels: {app: db}\n" +
			"  template:\n    metadata:\n      labels: {app: db}\n    spec:\n      containers:\n" +
			c("main", "        args: [--serve]\n"+res) + c("sidecar", res) + c("fixer", "        command: [sh]\n        args: [/fix.sh]\n"),
	})
	_, errOut, code := runCLI(t, repo, "fix", "--rule", "cpu-requests-missing", "--rule", "memory-requests-missing", "overlay")
	if code != 0 || strings.Contains(errOut, "withheld") || !strings.Contains(errOut, "fixed 2 findings in 1 file") {
		t.Fatalf("fix exited %d, want both request fixes of the third container applied:\n%s", code, errOut)
	}
	kust := readFile(t, filepath.Join(repo, "overlay/kustomization.yaml"))
	main, fixer := strings.Index(kust, "- name: main\n"), strings.Index(kust, "- name: fixer\n")
	if main < 0 || fixer < main || !strings.Contains(kust, "- name: sidecar\n") {
		t.Errorf("the patch should name main and sidecar before fixer, so the merge keeps their order:\n%s", kust)
	}
}
