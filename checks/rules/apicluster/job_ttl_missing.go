package apicluster

import (
	"github.com/prodready/prodready/checks"
	batchv1 "k8s.io/api/batch/v1"

	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
)

var jobTTLMissing = &checks.Rule{
	ID:       "job-ttl-missing",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/concepts/workloads/controllers/ttlafterfinished/",
	Why:      "a finished Job without ttlSecondsAfterFinished stays, with its pods, until someone deletes it",
	Help:     "Jobs owned by a CronJob (and a CronJob's jobTemplate) are cleaned up by the CronJob's history limits; Helm and Argo CD hook Jobs are deleted by the tool (before-hook-creation is the default delete policy of both).",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		job, ok := obj.Typed().(*batchv1.Job)
		if !ok || obj.Patch || job.Spec.TTLSecondsAfterFinished != nil {
			return nil
		}
		for _, o := range job.OwnerReferences {
			if o.Kind == "CronJob" {
				return nil
			}
		}
		if obj.Annotations["helm.sh/hook"] != "" || obj.Annotations["argocd.argoproj.io/hook"] != "" {
			return nil // hooks are deleted by the tool (before-hook-creation is both tools' default policy)
		}
		path := manifest.Path{"spec", "ttlSecondsAfterFinished"}
		return []checks.Finding{checks.At(obj, path, "Job has no ttlSecondsAfterFinished: it and its pods stay after it finishes. 86400 (one day) is a starting point; a GitOps tool that syncs this Job re-creates it once it is deleted, so mark it as a hook there").
			WithFix("set ttlSecondsAfterFinished: 86400", edit.Op{Action: edit.Set, Path: path, Value: "86400", Comment: "starting point: delete the finished Job after one day", After: []string{"parallelism", "completions", "completionMode", "activeDeadlineSeconds", "backoffLimit"}})}
	},
}
