package kyverno

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/prodready/prodready/checks"

	yaml "go.yaml.in/yaml/v3"

	"github.com/prodready/prodready/checks/manifest"
)

var webhookTimeout = &checks.Rule{
	ID:       "webhook-timeout",
	Section:  section,
	Severity: checks.Warning,
	Ref:      "https://kubernetes.io/docs/concepts/cluster-administration/admission-webhooks-good-practices/#small-timeout",
	Why:      "an admission webhook's timeout is above 15s or below 5s (about 15s is the compromise between rejecting requests on a slow network and stalling the whole API when the webhook hangs)",
	Help:     "Checks webhooks' timeoutSeconds (API default 10, maximum 30), Kyverno policies' spec.webhookConfiguration.timeoutSeconds (Kyverno ≥ 1.15) or spec.webhookTimeoutSeconds (older), and the Kyverno chart's webhookTimeout flag. Webhooks that only intercept their own (custom) API groups get info; image-verification policies are exempt because signature checks need longer.",
	Params:   map[string]any{"min": 5, "max": 15},
	// The API's own range of a webhook's timeoutSeconds.
	ParamRanges: map[string]checks.IntRange{"min": {Min: 1, Max: 30}, "max": {Min: 1, Max: 30}},
}

// The check reads its parameters through the registry, so it is attached
// in init (a package-level reference would be an initialization cycle).
func init() { webhookTimeout.Check = stripStringFixes(timeoutCheck) }

func timeoutCheck(ctx *checks.Context, obj *manifest.Object) []checks.Finding {
	lo, hi := ctx.Config.IntParam("webhook-timeout", "min"), ctx.Config.IntParam("webhook-timeout", "max")
	bad := func(n int) bool { return n < lo || n > hi }
	msg := func(what string, n int) string {
		if n > hi {
			return fmt.Sprintf("%s is %ds: while the webhook hangs, every matching API request waits that long, and the API server's own requests pile up; use about 15s", what, n)
		}
		return fmt.Sprintf("%s is %ds: a short network hiccup makes the webhook time out and rejects (or, failing open, skips) valid requests; use about 15s", what, n)
	}
	var out []checks.Finding
	for _, h := range hooks(obj) {
		if h.TimeoutSeconds == nil || !bad(int(*h.TimeoutSeconds)) {
			continue
		}
		p := h.Path.Child("timeoutSeconds")
		f := checks.At(obj, p, msg(fmt.Sprintf("the timeout of webhook %q", h.Name), int(*h.TimeoutSeconds))).WithFix("set the timeout to 15s", checks.SetOp(p, "15"))
		if onlyOwnGroups(h) {
			f = f.WithSeverity(checks.Info)
		}
		out = append(out, f)
	}
	if isPolicy(obj) && !imageVerification(obj) {
		for _, p := range []manifest.Path{{"spec", "webhookConfiguration", "timeoutSeconds"}, {"spec", "webhookTimeoutSeconds"}} {
			s, ok := obj.Scalar(p...)
			n, err := strconv.Atoi(s)
			if !ok || err != nil || !bad(n) {
				continue
			}
			out = append(out, checks.At(obj, p, msg(fmt.Sprintf("the webhook timeout of %s %s", obj.Kind, obj.Name), n)).WithFix("set the timeout to 15s", checks.SetOp(p, "15")))
		}
	}
	for _, v := range valuesOf(ctx, obj) {
		if v.ChartOwn {
			continue
		}
		out = append(out, chartTimeout(obj, v, bad, msg)...)
	}
	return out
}

// chartTimeout checks the Kyverno chart's webhookTimeout flag: 3.x
// admissionController.container.extraArgs.webhookTimeout, 2.x an
// extraArgs item --webhookTimeout=N.
func chartTimeout(obj *manifest.Object, v *values, bad func(int) bool, msg func(string, int) string) []checks.Finding {
	var out []checks.Finding
	if v.Gen != 2 {
		key := []string{"admissionController", "container", "extraArgs", "webhookTimeout"}
		if s, ok := v.scalar(key...); ok {
			if n, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && bad(n) {
				out = append(out, checks.At(v.o(obj), v.p(key...), msg("Kyverno's webhookTimeout", n)).WithFix("set the timeout to 15s", checks.SetOp(v.p(key...), "15")))
			}
		}
	}
	if v.Gen != 3 {
		if args := v.node("extraArgs"); args != nil && args.Kind == yaml.SequenceNode {
			for i, a := range args.Content {
				val, ok := strings.CutPrefix(a.Value, "--webhookTimeout=")
				if !ok {
					continue
				}
				if n, err := strconv.Atoi(val); err == nil && bad(n) {
					p := v.p("extraArgs", manifest.Index(i))
					out = append(out, checks.At(v.o(obj), p, msg("Kyverno's --webhookTimeout", n)).WithFix("set the timeout to 15s", checks.SetOp(p, "--webhookTimeout=15")))
				}
			}
		}
	}
	return out
}

// imageVerification reports whether a Kyverno policy verifies images
// (exempt from the timeout bounds: signature checks need longer).
func imageVerification(obj *manifest.Object) bool {
	if strings.Contains(obj.Kind, "ImageValidatingPolicy") {
		return true
	}
	rules := obj.Node("spec", "rules")
	if rules == nil || rules.Kind != yaml.SequenceNode {
		return false
	}
	for _, r := range rules.Content {
		if _, vi := manifest.MapEntry(r, "verifyImages"); vi != nil {
			return true
		}
	}
	return false
}
