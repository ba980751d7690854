package network_test

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
)

// TestNetworkAccessRulesOddInput feeds odd shapes to this family's rules:
// none may panic (a panic becomes an "internal error" finding).
func TestNetworkAccessRulesOddInput(t *testing.T) {
	docs := []string{
		"apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\napiServer: 5\n",
		"apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\napiServer:\n  extraArgs: [5, {name: null}, {value: x}]\n",
		"apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\napiServer:\n  extraArgs: {feature-gates: 'AllAlpha,=true,X=maybe'}\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: kube-apiserver}\nspec:\n  containers:\n  - name: kube-apiserver\n    image: x:1\n    command: []\n    args: ['--', '--=', '--feature-gates=']\n",
		"apiVersion: v1\nkind: Namespace\nmetadata: {name: ''}\n",
		"apiVersion: v1\nkind: Namespace\n",
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x, namespace: ''}\nspec:\n  template:\n    metadata:\n      labels: [a]\n",
		"apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: y}\nspec:\n  template: null\n",
		"apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata: {name: i}\nspec:\n  rules:\n  - {}\n  - host: ''\n    http: {paths: [{backend: {}}]}\n  tls: [{}]\n",
		"apiVersion: networking.k8s.io/v1beta1\nkind: Ingress\nmetadata: {name: j}\nspec: {}\n",
		"apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nrules: [{}]\n",
		"apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata: {name: b}\nroleRef: {kind: ClusterRole, name: cluster-admin, apiGroup: rbac.authorization.k8s.io}\n",
		"apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {selector: {'': ''}}\n",
		"apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {template: {spec: {containers: [{name: c, image: '@'}]}}}\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: ':'}, {name: d, image: 'a:b:c@'}, {name: e, image: '/'}]}\n",
		"apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: p}\nspec: {selector: {}}\n",
		"apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\n",
		"apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ntype: kubernetes.io/service-account-token\nsops: {}\n",
		"apiVersion: /\nkind: x\n",
		"- a\n- b\n",
		"just a string\n",
	}
	var inputs []checks.Input
	for i, d := range docs {
		inputs = append(inputs, checks.Input{Path: "odd/" + string(rune('a'+i)) + ".yaml", Data: []byte(d)})
	}
	inputs = append(inputs, checks.Input{Path: "odd/all.yaml", Data: []byte(strings.Join(docs, "---\n"))})
	cfg, err := checks.ParseConfig([]byte("kubernetesVersion: '1.20'\nrules:\n  image-not-pinned: {enabled: true}\n  image-registry-not-allowed: {allowedRegistries: [ghcr.io]}\n  ingress-host-not-approved: {approvedDomains: [acme.io]}\n"), catalog.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range checks.Run(inputs, cfg, checks.Options{}).Findings {
		if strings.Contains(f.Message, "internal error") {
			t.Errorf("%s:%d %s: %s", f.File, f.Line, f.RuleID, f.Message)
		}
	}
}
