package configsecrets_test

import (
	"testing"

	"github.com/prodready/prodready/checks/catalog"
	"github.com/prodready/prodready/checks/checkstest"
)

// TestCorpusNoFalseAlarmsConfigSecrets pins the configuration and secrets
// rules on real manifests.
func TestCorpusNoFalseAlarmsConfigSecrets(t *testing.T) {
	checkstest.RunCorpusCases(t, catalog.Default(), []checkstest.CorpusCase{
		{File: "gke-samples/databases/cloud-pubsub/deployment/pubsub-with-secret.yaml", Kind: "Deployment", Name: "pubsub", Rule: "sensitive-env-literal",
			Why: "GOOGLE_APPLICATION_CREDENTIALS holds a file path, not a credential"},
		{File: "gke-samples/quickstarts/wordpress-persistent-disks/mysql.yaml", Kind: "Deployment", Name: "mysql", Rule: "sensitive-env-literal",
			Why: "MYSQL_ROOT_PASSWORD comes from a secretKeyRef"},
		{File: "kubernetes-examples/_archived/javaee/mysql-pod.yaml", Kind: "Pod", Name: "mysql-pod", Rule: "sensitive-env-literal", Fire: true,
			Why: "MYSQL_ROOT_PASSWORD is a literal"},
		{File: "gke-samples/quickstarts/wordpress-persistent-disks/mysql.yaml", Kind: "Deployment", Name: "mysql", Rule: "secret-in-env", Fire: true,
			Why: "the root password comes from a Secret through env"},
	})
}
