package main

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/internal/fakegithub"
	"github.com/prodready/prodready/internal/testconfig"
)

// bitnamiShaped is a repository laid out as bitnami/charts is: a library
// chart common beside a chart that depends on it by name from an OCI
// registry, with no charts/ folder (helm dependency build is not run in
// the repository). The StatefulSet's name comes from common's helper, so
// the chart renders only with its sibling.
func bitnamiShaped(replicas string) map[string]string {
	return map[string]string{
		"bitnami/common/Chart.yaml": "apiVersion: v2\nname: common\ntype: library\nversion: 2.31.4\n",
		"bitnami/common/templates/_names.tpl": "{{- define \"common.names.fullname\" -}}\n" +
			"{{- printf \"%s-%s\" .Release.Name .Chart.Name | trunc 63 | trimSuffix \"-\" -}}\n{{- end -}}\n",
		"bitnami/redis/Chart.yaml": "apiVersion: v2\nname: redis\nversion: 21.2.0\ndependencies:\n" +
			"- name: common\n  repository: oci://registry-1.docker.io/bitnamicharts\n  tags:\n  - bitnami-common\n  version: 2.x.x\n",
		"bitnami/redis/values.yaml": "## Redis replicas\nreplicaCount: " + replicas + "\nimage: docker.io/bitnami/redis:8.0.2\n",
		"bitnami/redis/templates/statefulset.yaml": "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n" +
			"  name: {{ include \"common.names.fullname\" . }}\nspec:\n  replicas: {{ .Values.replicaCount }}\n" +
			"  serviceName: {{ include \"common.names.fullname\" . }}\n  selector:\n    matchLabels:\n      app: redis\n" +
			"  template:\n    metadata:\n      labels:\n        app: redis\n    spec:\n      containers:\n" +
			"      - name: redis\n        image: {{ .Values.image }}\n",
		"bitnami/redis/templates/service.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n" +
			"  name: {{ include \"common.names.fullname\" . }}\nspec:\n  clusterIP: None\n  selector:\n    app: redis\n  ports:\n  - port: 6379\n",
	}
}

// TestServeRendersChartWithSiblingDependency runs `prodready serve` as a
// process against the fake GitHub on a pull request that changes only
// bitnami/redis/values.yaml (replicaCount 3 -> 1) in a bitnami-shaped
// repository: the bot loads the sibling common chart that redis's render
// needs though the pull request does not touch it, renders redis, and
// posts the new replicas-too-few warning on the values line, as `check`
// reports it; no render-failed finding, no "No new findings".
func TestServeRendersChartWithSiblingDependency(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a serve process; skipped with -short")
	}
	config := testconfig.OnlyRule("replicas-too-few")
	base := bitnamiShaped("3")
	base[".prodready.yaml"] = config
	head := bitnamiShaped("1")
	head[".prodready.yaml"] = config
	fake := reviewOpened(t, base, head)
	var posted strings.Builder
	for _, run := range fake.CheckRuns("acme", "web") {
		posted.WriteString(run.Title + "\n" + run.Summary + "\n" + run.Text + "\n")
	}
	var comments []fakegithub.Comment
	for _, rv := range fake.Reviews("acme", "web") {
		posted.WriteString(rv.Body + "\n")
		comments = append(comments, rv.Comments...)
	}
	text := posted.String()
	if len(comments) != 1 || comments[0].Path != "bitnami/redis/values.yaml" || comments[0].Line != 2 || !strings.Contains(comments[0].Body, "replicas-too-few") {
		t.Fatalf("want one replicas-too-few comment on bitnami/redis/values.yaml line 2; got %+v\nposted:\n%s", comments, text)
	}
	for _, bad := range []string{"render-failed", "No new findings", "dependency common"} {
		if strings.Contains(text, bad) {
			t.Errorf("the review says %q:\n%s", bad, text)
		}
	}
}
