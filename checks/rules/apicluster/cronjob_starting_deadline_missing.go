package apicluster

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/edit"
	"github.com/prodready/prodready/checks/manifest"
	"github.com/prodready/prodready/internal/cron"
)

// frequentSpan is what 100 intervals of an hourly schedule take: a
// schedule whose 100 missed runs fit in less runs more often than hourly.
const frequentSpan = 100 * time.Hour

// unknownIntervalDeadline is the startingDeadlineSeconds offered when the
// schedule cannot be read: five minutes lets at most five runs of any
// schedule be missed, and tolerates a controller that is late by minutes.
const unknownIntervalDeadline = 300

var cronjobStartingDeadlineMissing = &checks.Rule{
	ID:       "cronjob-starting-deadline-missing",
	Section:  section,
	Severity: checks.Info,
	Ref:      "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#cron-job-limitations",
	Why:      "without startingDeadlineSeconds the CronJob controller counts every schedule missed since the last run: past 100, the controller of Kubernetes 1.20 and older never starts the CronJob again",
	Help: "Fires on a CronJob without startingDeadlineSeconds whose schedule runs more often than hourly (100 of its runs fit in less than 100 hours, so a controller outage of a few hours misses 100 schedules), " +
		"or that has concurrencyPolicy Forbid (a run that hangs blocks every later slot, and each counts as missed; unless the jobTemplate's activeDeadlineSeconds ends a run before 100 slots pass). " +
		"kube-score asks every CronJob for a deadline; an hourly or daily CronJob needs an outage of more than four days to miss 100 schedules, which someone notices first, so those do not fire. " +
		"The count starts at the last run, or at now minus startingDeadlineSeconds when that is later: a deadline of one interval keeps it at one or two. " +
		"On Kubernetes 1.20 and older (the first CronJob controller) more than 100 missed schedules stop the CronJob for good (\"Cannot determine if job needs to be started\"); " +
		"the controller of 1.21 and later records a TooManyMissedTimes warning and starts the latest missed run. " +
		"The fix sets startingDeadlineSeconds to the schedule's interval, exact when the schedule has one (the latest missed run is less than one interval late, so it still starts); for a schedule whose gaps differ (0 9,17 * * *) it offers the shortest as a starting point (a run that late after a longer gap is skipped), and 300 seconds when the schedule cannot be read. " +
		"Standard five-field schedules, month and weekday names, the @hourly … @yearly forms and @every are read; time zones and daylight saving time are not modelled.",
	Check: func(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
		cj, ok := obj.Typed().(*batchv1.CronJob)
		if !ok || obj.Patch || cj.Spec.StartingDeadlineSeconds != nil {
			return nil
		}
		schedule := strings.TrimSpace(cj.Spec.Schedule)
		if schedule == "" || manifest.IsPlaceholder(schedule) || strings.ContainsAny(schedule, "${}") {
			return nil
		}
		forbid := cj.Spec.ConcurrencyPolicy == batchv1.ForbidConcurrent
		s, parsed := cron.Parse(schedule)
		var cad cron.Cadence
		if parsed {
			if cad = s.Cadence(); !cad.Runs {
				return nil // a schedule that never runs misses nothing
			}
		}
		frequent := cad.Span > 0 && cad.Span < frequentSpan
		if forbid && !frequent && parsed && cad.Interval > 0 {
			// A run cannot block 100 slots when activeDeadlineSeconds ends it first.
			if ad := cj.Spec.JobTemplate.Spec.ActiveDeadlineSeconds; ad != nil && time.Duration(*ad)*time.Second < 100*cad.Interval {
				return nil
			}
		}
		if !frequent && !forbid {
			return nil
		}
		var why string
		switch {
		case frequent:
			why = fmt.Sprintf("runs %s, so a controller outage of %s misses 100 schedules", describeInterval(cad), formatDuration(cad.Span))
			if forbid {
				why += " (and with concurrencyPolicy Forbid, a run that lasts that long does too)"
			}
		case parsed && cad.Interval > 0:
			why = fmt.Sprintf("has concurrencyPolicy Forbid, so the slots a hung run blocks count as missed: 100 of them after %s", formatDuration(100*cad.Interval))
		default:
			why = "has concurrencyPolicy Forbid, so the slots a hung run blocks count as missed"
		}
		effect := "past 100 missed schedules the controller records a TooManyMissedTimes warning and starts only the latest missed run (the CronJob controller of Kubernetes 1.20 and older never started it again)"
		if ctx.Config != nil && ctx.Config.TargetMinor() < 21 {
			effect = "past 100 missed schedules the CronJob controller of Kubernetes 1.20 and older never starts it again"
		}
		path := manifest.Path{"spec", "startingDeadlineSeconds"}
		msg := fmt.Sprintf("CronJob %q %s, and it has no startingDeadlineSeconds: %s", obj.Name, why, effect)
		after := []string{"schedule", "timeZone", "concurrencyPolicy", "suspend"}
		f := checks.At(obj, path, msg)
		if parsed && cad.Interval > 0 {
			secs := int64(cad.Interval / time.Second)
			v := strconv.FormatInt(secs, 10)
			if cad.Regular {
				// The latest missed run is less than one interval late when
				// the controller looks again: it still starts.
				return []checks.Finding{f.WithExactFix(
					fmt.Sprintf("set startingDeadlineSeconds: %d, the schedule's interval: the latest missed run still starts, and the controller counts only the schedules of the last %d seconds", secs, secs),
					edit.Op{Action: edit.Set, Path: path, Value: v, After: after})}
			}
			return []checks.Finding{f.WithFix(
				fmt.Sprintf("set startingDeadlineSeconds: %d, the schedule's shortest interval (a starting point: a run later than that after a longer gap is skipped)", secs),
				edit.Op{Action: edit.Set, Path: path, Value: v, Comment: "starting point: the schedule's shortest interval", After: after})}
		}
		return []checks.Finding{f.WithFix(
			fmt.Sprintf("set startingDeadlineSeconds: %d (a starting point: make it the schedule's interval)", unknownIntervalDeadline),
			edit.Op{Action: edit.Set, Path: path, Value: strconv.Itoa(unknownIntervalDeadline), Comment: "starting point: the schedule's interval", After: after})}
	},
}

// describeInterval says how often a schedule runs: "every 5 minutes", or
// "as often as every 5 minutes" when its gaps differ.
func describeInterval(c cron.Cadence) string {
	every := "every " + strings.TrimPrefix(formatDuration(c.Interval), "1 ") // "every minute"
	if c.Regular {
		return every
	}
	return "as often as " + every
}

// formatDuration writes whole minutes, hours and days for people:
// "5 minutes", "1 hour", "8h20m", "4 days".
func formatDuration(d time.Duration) string {
	unit := func(n int64, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return strconv.FormatInt(n, 10) + " " + one + "s"
	}
	switch {
	case d >= 24*time.Hour && d%(24*time.Hour) == 0:
		return unit(int64(d/(24*time.Hour)), "day")
	case d >= time.Hour && d%time.Hour == 0:
		return unit(int64(d/time.Hour), "hour")
	case d >= time.Minute && d < time.Hour && d%time.Minute == 0:
		return unit(int64(d/time.Minute), "minute")
	case d < time.Minute && d%time.Second == 0:
		return unit(int64(d/time.Second), "second")
	}
	s := d.String() // "8h20m0s", "1m30s"
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	return s
}
