package security_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"

	"github.com/prodready/prodready/checks"
)

// secFixCase says what the fix of the finding at file:line must (or must
// not) be: where a fix is safe, and where only a message is.
type secFixCase struct {
	folder, file string
	line         int
	rule         string
	wantFix      bool
	// ops lists "action path=value" edits that must all be in the fix.
	ops []string
	why string
	// withheld, when set, is what the fix's Withheld must say (it then
	// has no edits).
	withheld string
}

func secFixOps(f checks.Finding) []string {
	var out []string
	if f.Fix == nil {
		return nil
	}
	for _, op := range f.Fix.Edits {
		out = append(out, string(op.Action)+" "+strings.Join(op.Path, ".")+"="+strings.TrimSpace(op.Value))
	}
	return out
}

func TestResSecFixes(t *testing.T) {
	c0 := "spec.template.spec.containers.0."
	table := []secFixCase{
		{folder: "memory-requests-missing", file: "deployment.yaml", line: 24, rule: "memory-requests-missing", wantFix: true,
			ops: []string{"set " + c0 + "resources.requests.memory=256Mi", "set " + c0 + "resources.limits.memory=256Mi"}, why: "request = limit, a placeholder"},
		{folder: "memory-limit-missing", file: "deployment.yaml", line: 21, rule: "memory-limit-missing", wantFix: true,
			ops: []string{"set " + c0 + "resources.limits.memory=300Mi"}, why: "limit = request, as written"},
		{folder: "cpu-requests-missing", file: "deployment.yaml", line: 19, rule: "cpu-requests-missing", wantFix: true,
			ops: []string{"set " + c0 + "resources.requests.cpu=100m"}},
		{folder: "cpu-limit-set", file: "deployment.yaml", line: 24, rule: "cpu-limit-set", wantFix: true,
			ops: []string{"set spec.template.spec.containers.1.resources.requests.cpu=100m", "delete spec.template.spec.containers.1.resources.limits="},
			why: "the request defaulted to the limit: keep it, and drop the now-empty limits"},
		{folder: "limit-below-request", file: "deployment.yaml", line: 25, rule: "limit-below-request", wantFix: true,
			ops: []string{"set " + c0 + "resources.requests.cpu=500m"}, why: "request = limit"},
		{folder: "privileged-container", file: "workloads.yaml", line: 17, rule: "privileged-container", wantFix: true,
			ops: []string{"set spec.template.spec.initContainers.0.securityContext.privileged=false"}},
		{folder: "privilege-escalation-allowed", file: "workloads.yaml", line: 13, rule: "privilege-escalation-allowed", wantFix: true,
			ops: []string{"set " + c0 + "securityContext.allowPrivilegeEscalation=false"}},
		{folder: "privilege-escalation-allowed", file: "workloads.yaml", line: 29, rule: "privilege-escalation-allowed", wantFix: false,
			why: "beside privileged: true the API server rejects allowPrivilegeEscalation: false"},
		{folder: "privilege-escalation-allowed", file: "workloads.yaml", line: 33, rule: "privilege-escalation-allowed", wantFix: false,
			why: "beside an added SYS_ADMIN the API server rejects allowPrivilegeEscalation: false"},
		{folder: "run-as-root", file: "workloads.yaml", line: 38, rule: "run-as-root", wantFix: true, withheld: "runAsUser: 0 asks for root explicitly",
			why: "an init container that asks for root explicitly (a chown) keeps it: the generic UID is withheld"},
		{folder: "run-as-root", file: "workloads.yaml", line: 13, rule: "run-as-root", wantFix: true, withheld: "runAsGroup: 0 asks for the root group explicitly",
			why: "the pod's runAsGroup: 0 is a choice made on purpose: the generic GID is withheld"},
		{folder: "readonly-rootfs-missing", file: "workloads.yaml", line: 13, rule: "readonly-rootfs-missing", wantFix: true,
			ops: []string{"set " + c0 + "securityContext.readOnlyRootFilesystem=true", "append " + c0 + "volumeMounts=name: app-tmp\nmountPath: /tmp", "append spec.template.spec.volumes=name: app-tmp\nemptyDir: {}"}},
		{folder: "readonly-rootfs-missing", file: "workloads.yaml", line: 18, rule: "readonly-rootfs-missing", wantFix: false,
			why: "nginx writes outside /tmp: a message, no fix"},
		{folder: "capabilities-not-dropped", file: "workloads.yaml", line: 18, rule: "capabilities-not-dropped", wantFix: true,
			ops: []string{"append " + c0 + "securityContext.capabilities.drop=ALL"}, why: "runs as non-root"},
		{folder: "capabilities-not-dropped", file: "workloads.yaml", line: 46, rule: "capabilities-not-dropped", wantFix: true,
			ops: []string{"append " + c0 + "securityContext.capabilities.drop=ALL"},
			why: "may run as root, but run-as-root's fix (on by default) makes it non-root, so drop ALL comes in the same review"},
		{folder: "seccomp-profile-missing", file: "workloads.yaml", line: 11, rule: "seccomp-profile-missing", wantFix: true,
			ops: []string{"set spec.template.spec.securityContext.seccompProfile.type=RuntimeDefault"}},
		{folder: "service-account-token-automount", file: "workloads.yaml", line: 12, rule: "service-account-token-automount", wantFix: true,
			ops: []string{"set spec.template.spec.automountServiceAccountToken=false"}},
		{folder: "serviceaccount-missing", file: "deployment.yaml", line: 28, rule: "serviceaccount-missing", wantFix: true,
			ops: []string{"set spec.template.spec.serviceAccountName=api", "delete spec.template.spec.serviceAccount="}},
		{folder: "serviceaccount-missing", file: "deployment.yaml", line: 12, rule: "serviceaccount-missing", wantFix: false,
			why: "a misspelt account name: only a person knows the right one"},
		{folder: "namespace-pod-security-missing", file: "namespaces.yaml", line: 3, rule: "namespace-pod-security-missing", wantFix: true,
			ops: []string{"set metadata.labels.pod-security.kubernetes.io/enforce=baseline", "set metadata.labels.pod-security.kubernetes.io/warn=restricted", "set metadata.labels.pod-security.kubernetes.io/audit=restricted"},
			why: "shop's workload may run as root: baseline is the strictest it meets"},
		{folder: "namespace-pod-security-missing", file: "namespaces.yaml", line: 10, rule: "namespace-pod-security-missing", wantFix: true,
			ops: []string{"set metadata.labels.pod-security.kubernetes.io/enforce=privileged", "set metadata.labels.pod-security.kubernetes.io/audit=restricted"},
			why: "a privileged agent runs there; the existing warn label is kept"},
		{folder: "namespace-pod-security-missing", file: "namespaces.yaml", line: 25, rule: "namespace-pod-security-missing", wantFix: false,
			why: "no workload of the namespace in the repo: no blind enforce"},
		{folder: "pod-security-level-violation", file: "workloads.yaml", line: 4, rule: "pod-security-level-violation", wantFix: true,
			ops: []string{"set " + c0 + "securityContext.allowPrivilegeEscalation=false", "set " + c0 + "securityContext.runAsNonRoot=true", "append " + c0 + "securityContext.capabilities.drop=ALL", "set spec.template.spec.securityContext.seccompProfile.type=RuntimeDefault"},
			why: "restricted's failures all have fixes; drop ALL is safe together with the run-as-non-root fix"},
		{folder: "pod-security-level-violation", file: "workloads.yaml", line: 44, rule: "pod-security-level-violation", wantFix: false,
			why: "host namespaces have no safe fix"},
	}
	for _, tc := range table {
		t.Run(tc.folder+"/"+tc.file, func(t *testing.T) {
			res, _ := checkstest.Fixture(t, catalog.Default(), filepath.Join(checkstest.RulesDir(t), tc.folder))
			var found *checks.Finding
			for i, f := range res.Findings {
				if f.RuleID == tc.rule && filepath.Base(f.File) == tc.file && f.Line == tc.line {
					found = &res.Findings[i]
				}
			}
			if found == nil {
				t.Fatalf("no %s finding at %s:%d", tc.rule, tc.file, tc.line)
			}
			if (found.Fix != nil) != tc.wantFix {
				t.Fatalf("%s:%d %s: fix present = %v, want %v (%s): %v", tc.file, tc.line, tc.rule, found.Fix != nil, tc.wantFix, tc.why, secFixOps(*found))
			}
			if tc.withheld != "" && (!strings.Contains(found.Fix.Withheld, tc.withheld) || len(found.Fix.Edits) > 0) {
				t.Errorf("%s:%d %s: fix withheld %q with %d edits, want withheld saying %q and no edits (%s)", tc.file, tc.line, tc.rule, found.Fix.Withheld, len(found.Fix.Edits), tc.withheld, tc.why)
			}
			got := strings.Join(secFixOps(*found), "\n")
			for _, want := range tc.ops {
				if !strings.Contains("\n"+got+"\n", "\n"+want+"\n") {
					t.Errorf("%s:%d %s: fix lacks %q (%s); it has:\n%s", tc.file, tc.line, tc.rule, want, tc.why, got)
				}
			}
		})
	}
}

// TestCapsDropNoFixForRootWithoutRunAsRoot: with run-as-root switched off,
// nothing makes a possibly-root container non-root, and dropping ALL would
// break root entrypoints that chown or setuid: a message, no fix.
func TestCapsDropNoFixForRootWithoutRunAsRoot(t *testing.T) {
	cfg, err := checks.ParseConfig([]byte("rules:\n  run-as-root: false\n"), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	inputs, err := checks.Load([]string{filepath.Join(checkstest.RulesDir(t), "capabilities-not-dropped")}, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range checks.Run(inputs, cfg, checks.Options{}).Findings {
		if f.RuleID == "capabilities-not-dropped" && f.Line == 46 && filepath.Base(f.File) == "workloads.yaml" {
			found = true
			if f.Fix != nil {
				t.Errorf("a possibly-root container gets no drop-ALL fix without run-as-root: %+v", f.Fix)
			}
		}
	}
	if !found {
		t.Fatal("the possibly-root container must still be reported")
	}
}
