package rendered_test

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/rendered"
)

// switchedChart serves a Deployment of .Values.replicaCount replicas
// behind a Service, and writes a PodDisruptionBudget and a
// ServiceAccount only under values its values.yaml leaves off; values
// is that values.yaml.
func switchedChart(values string) rendered.Files {
	return rendered.Files{
		"c/Chart.yaml":  []byte("apiVersion: v2\nname: switched\nversion: 0.1.0\n"),
		"c/values.yaml": []byte(values),
		"c/templates/deployment.yaml": []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      serviceAccountName: {{ if .Values.serviceAccount.create }}web{{ else }}default{{ end }}
      containers:
        - name: web
          image: ghcr.io/example/web:1.0
`),
		"c/templates/service.yaml": []byte(`apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
    - port: 80
`),
		"c/templates/pdb.yaml": []byte(`{{- if and .Values.pdb.enabled $.Values.serviceAccount }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: web
  {{- with .Values.pdb.minAvailable }}
  minAvailable: {{ . }}
  {{- end }}
  {{- with .Values.pdb.maxUnavailable }}
  maxUnavailable: {{ . }}
  {{- end }}
{{- end }}
`),
		"c/templates/serviceaccount.yaml": []byte(`{{- if .Values.serviceAccount.create -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: web
{{- end }}
`),
	}
}

// TestTurnOnSetsTheValuesOfTheChartsOwnTemplate checks that pdb-missing
// and default-service-account, on a chart whose own templates write the
// object its values leave out, are fixed in values.yaml by setting the
// keys the template's guard reads (a key at false, or False, to true; one
// already true, as serviceAccount is here, left alone), and that the
// fixed values render the objects.
func TestTurnOnSetsTheValuesOfTheChartsOwnTemplate(t *testing.T) {
	chart := switchedChart("replicaCount: 3\npdb:\n  enabled: false\n  maxUnavailable: 1\nserviceAccount:\n  create: False\n")
	found := lastByRule(verifiedChart(t, chart))
	want := map[string]struct {
		line int
		key  string
	}{"pdb-missing": {3, "pdb.enabled"}, "default-service-account": {6, "serviceAccount.create"}}
	var fs []checks.Finding
	for rule, w := range want {
		f := found[rule]
		if f.File != "c/values.yaml" || f.Line != w.line || f.Fix == nil || f.Fix.Withheld != "" || len(f.Fix.Edits) != 1 ||
			strings.Join(f.Fix.Edits[0].Path, ".") != w.key || f.Fix.Edits[0].Value != "true" {
			t.Errorf("%s: %s:%d %+v, want %s: true at values.yaml:%d", rule, f.File, f.Line, f.Fix, w.key, w.line)
			continue
		}
		if !strings.Contains(f.Fix.Description, "turn on the chart's c/templates/") || !strings.Contains(f.Fix.Description, "(as "+w.key+" in values.yaml)") {
			t.Errorf("%s: the fix says %q", rule, f.Fix.Description)
		}
		fs = append(fs, f)
	}
	if len(fs) != len(want) {
		return
	}
	kinds := renderFixed(t, chart, fs)
	if !kinds["PodDisruptionBudget"] || !kinds["ServiceAccount"] {
		t.Errorf("the fixed values render %v, want a PodDisruptionBudget and a ServiceAccount", kinds)
	}
}

// TestTurnOnGivesAnEmptyMappingItsBudget checks that a guard on a values
// key that holds an empty mapping, written out as the budget's spec
// (`podDisruptionBudget: {}` under `if .Values.podDisruptionBudget`), is
// turned on with maxUnavailable: 1 under it, and that the values then
// render the budget.
func TestTurnOnGivesAnEmptyMappingItsBudget(t *testing.T) {
	chart := switchedChart("replicaCount: 3\npodDisruptionBudget: {}\n  # maxUnavailable: 1\nserviceAccount:\n  create: true\n")
	chart["c/templates/pdb.yaml"] = []byte(`{{- if .Values.podDisruptionBudget -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: web
spec:
  selector:
    matchLabels:
      app: web
{{ toYaml .Values.podDisruptionBudget | indent 2 }}
{{- end }}
`)
	f := lastByRule(verifiedChart(t, chart))["pdb-missing"]
	if f.File != "c/values.yaml" || f.Line != 2 || f.Fix == nil || len(f.Fix.Edits) != 1 ||
		strings.Join(f.Fix.Edits[0].Path, ".") != "podDisruptionBudget.maxUnavailable" || f.Fix.Edits[0].Value != "1" {
		t.Fatalf("pdb-missing: %s:%d %+v, want podDisruptionBudget.maxUnavailable: 1 at values.yaml:2", f.File, f.Line, f.Fix)
	}
	if kinds := renderFixed(t, chart, []checks.Finding{f}); !kinds["PodDisruptionBudget"] {
		t.Errorf("the fixed values render %v, want a PodDisruptionBudget", kinds)
	}
}

// TestTurnOnIsVerifiedAlone checks that a budget turned on over the one
// replica that replicas-too-few's fix raises is withheld when the budget
// alone blocks every drain (minAvailable: 1 of one pod): a review's
// suggestion may be committed without the other, and rendered with both
// the budget is fine, so only rendering it alone shows it. The same
// budget of maxUnavailable: 1 is kept.
func TestTurnOnIsVerifiedAlone(t *testing.T) {
	for _, tc := range []struct {
		policy   string
		withheld string // what the reason names, "" for a kept fix
	}{
		{"minAvailable: 1", `pdb-blocks-eviction on PodDisruptionBudget "web"`},
		{"maxUnavailable: 1", ""},
	} {
		chart := switchedChart("replicaCount: 1\npdb:\n  enabled: false\n  " + tc.policy + "\nserviceAccount:\n  create: true\n")
		f := lastByRule(verifiedChart(t, chart))["pdb-missing"]
		switch {
		case f.Fix == nil:
			t.Errorf("%s: pdb-missing has no fix: %+v", tc.policy, f)
		case tc.withheld == "" && (f.Fix.Withheld != "" || len(f.Fix.Edits) != 1):
			t.Errorf("%s: the fix is %+v, want it kept", tc.policy, f.Fix)
		case tc.withheld != "" && (len(f.Fix.Edits) > 0 || !strings.Contains(f.Fix.Withheld, "with it alone brings "+tc.withheld)):
			t.Errorf("%s: the fix is %+v, want it withheld for %s", tc.policy, f.Fix, tc.withheld)
		}
	}
}

// TestTurnOnLeavesOtherGuards checks that no fix turns on a template
// whose guard is more than values keys (a comparison, a negation, `or`)
// or reads a key that holds another falsy value (0): the pointer to the
// template stays in the message, with no edits.
func TestTurnOnLeavesOtherGuards(t *testing.T) {
	for guard, values := range map[string]string{
		"{{- if and .Values.pdb.enabled (gt (int .Values.replicaCount) 1) }}": "pdb:\n  enabled: false\n",
		"{{- if not .Values.pdb.disabled }}":                                  "pdb:\n  disabled: true\n",
		"{{- if or .Values.pdb.enabled .Values.pdb.on }}":                     "pdb:\n  enabled: false\n",
		"{{- if .Values.pdb.enabled }}":                                       "pdb:\n  enabled: 0\n",
	} {
		chart := switchedChart("replicaCount: 3\n" + values + "serviceAccount:\n  create: true\n")
		chart["c/templates/pdb.yaml"] = []byte(guard + "\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  maxUnavailable: 1\n  selector:\n    matchLabels:\n      app: web\n{{- end }}\n")
		for _, f := range verifiedChart(t, chart) {
			if f.RuleID != "pdb-missing" {
				continue
			}
			if !strings.Contains(f.Message, "c/templates/pdb.yaml writes one") || f.Fix == nil || len(f.Fix.Edits) > 0 || f.Fix.Withheld != "" {
				t.Errorf("%s with %q: %s, fix %+v, want the template named and no edits", guard, values, f.Message, f.Fix)
			}
		}
	}
}

// TestTurnOnKeepsTheBoundDefaultAccount checks that default-service-account
// does not turn the chart's ServiceAccount on when a RoleBinding of the
// run grants the namespace's default account something: the pod would
// lose it with an account of its own. The template is still named.
func TestTurnOnKeepsTheBoundDefaultAccount(t *testing.T) {
	chart := switchedChart("replicaCount: 3\npdb:\n  enabled: true\n  maxUnavailable: 1\nserviceAccount:\n  create: false\n")
	chart["c/templates/rolebinding.yaml"] = []byte("apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: web-reader\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: reader\nsubjects:\n  - kind: ServiceAccount\n    name: default\n")
	found := false
	for _, f := range verifiedChart(t, chart) {
		if f.RuleID != "default-service-account" {
			continue
		}
		found = true
		if !strings.Contains(f.Message, "c/templates/serviceaccount.yaml writes one") || f.Fix != nil {
			t.Errorf("default-service-account: %s, fix %+v, want the template named and no fix", f.Message, f.Fix)
		}
	}
	if !found {
		t.Error("no default-service-account finding")
	}
}

// renderFixed applies fs to chart's values.yaml and returns the kinds its
// render then holds.
func renderFixed(t *testing.T, chart rendered.Files, fs []checks.Finding) map[string]bool {
	t.Helper()
	_, r := fixedRender(t, chart, "c/values.yaml", fs, "")
	kinds := map[string]bool{}
	for _, d := range r.Documents {
		for line := range strings.Lines(string(d.YAML)) {
			if k, ok := strings.CutPrefix(line, "kind: "); ok {
				kinds[strings.TrimSpace(k)] = true
			}
		}
	}
	return kinds
}
