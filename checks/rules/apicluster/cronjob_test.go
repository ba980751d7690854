package apicluster_test

import (
	"strings"
	"testing"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/catalog"
)

// TestCronJobDeadlineByVersion checks that the message says what the
// target version's CronJob controller does with 100 missed schedules.
func TestCronJobDeadlineByVersion(t *testing.T) {
	const doc = "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: often\nspec:\n  schedule: \"*/5 * * * *\"\n" +
		"  jobTemplate:\n    spec:\n      template:\n        spec:\n          restartPolicy: OnFailure\n          containers:\n            - name: c\n              image: busybox:1.36\n"
	for _, c := range []struct{ version, want, not string }{
		{"1.20", "of Kubernetes 1.20 and older never starts it again", "TooManyMissedTimes"},
		{"1.33", "records a TooManyMissedTimes warning and starts only the latest missed run", ""},
	} {
		cfg, err := checks.ParseConfig([]byte("kubernetesVersion: \""+c.version+"\"\n"), catalog.Default())
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, f := range checks.Run([]checks.Input{{Path: "cron.yaml", Data: []byte(doc)}}, cfg, checks.Options{}).Findings {
			if f.RuleID == "cronjob-starting-deadline-missing" {
				msgs = append(msgs, f.Message)
				if !f.ExactFix() || len(f.Fix.Edits) != 1 || f.Fix.Edits[0].Value != "300" {
					t.Errorf("%s: fix %+v, want an exact startingDeadlineSeconds: 300", c.version, f.Fix)
				}
			}
		}
		if len(msgs) != 1 || !strings.Contains(msgs[0], c.want) || (c.not != "" && strings.Contains(msgs[0], c.not)) {
			t.Errorf("target %s: %q, want one message with %q", c.version, msgs, c.want)
		}
	}
}
