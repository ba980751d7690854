package bot

import "slices"

// Posted is one of the bot's own comments (or discussions) already on the
// pull request, as the host adapter lists it: the adapter reads the
// fingerprint markers of its body; bot decides what becomes of it.
type Posted struct {
	// ID is the host's id of the comment or thread, as the adapter spells
	// it (a GitHub review comment id, a GitLab discussion id).
	ID string
	// Fingerprints are the fingerprints in the comment's markers.
	Fingerprints []string
	// Resolved is true when the host already shows the thread resolved.
	Resolved bool
}

// CommentPlan is what publishing a review changes among the bot's comments
// on the host: the comments to post, the posted ones to keep, and the
// posted ones whose findings are gone.
type CommentPlan struct {
	// Post are the review's comments with a fingerprint no posted comment
	// has, in review order.
	Post []Comment
	// Keep are the review's comments every fingerprint of which is
	// already posted: not posted again.
	Keep []Comment
	// Resolve are the unresolved posted comments none of whose
	// fingerprints is a finding of the review any more: fixed.
	Resolve []Posted
}

// PlanComments decides, once for every host, which of r's comments are new,
// which are already posted, and which posted comments are gone (the model
// is reviewdog's commentutil: a set of posted comments keyed by
// fingerprint). Posted comments without a fingerprint are never resolved.
func PlanComments(r Review, posted []Posted) CommentPlan {
	seen := map[string]bool{}
	for _, p := range posted {
		for _, fp := range p.Fingerprints {
			seen[fp] = true
		}
	}
	var plan CommentPlan
	for _, c := range r.Comments {
		if allIn(c.AllFingerprints(), seen) {
			plan.Keep = append(plan.Keep, c)
		} else {
			plan.Post = append(plan.Post, c)
		}
	}
	current := map[string]bool{}
	for fp := range r.Fingerprints {
		current[fp] = true
	}
	if r.Fingerprints == nil {
		for _, f := range r.Findings {
			current[f.Fingerprint()] = true
		}
	}
	for _, c := range r.Comments {
		for _, fp := range c.AllFingerprints() {
			current[fp] = true
		}
	}
	for _, p := range posted {
		if p.Resolved || len(p.Fingerprints) == 0 || slices.ContainsFunc(p.Fingerprints, func(fp string) bool { return current[fp] }) {
			continue
		}
		plan.Resolve = append(plan.Resolve, p)
	}
	return plan
}

// AllFingerprints are the fingerprints a comment covers: Fingerprints,
// Fingerprint, and those of the markers in its body, each once.
func (c Comment) AllFingerprints() []string {
	fps := slices.Clone(c.Fingerprints)
	for _, fp := range append(Fingerprints(c.Body), c.Fingerprint) {
		if fp != "" && !slices.Contains(fps, fp) {
			fps = append(fps, fp)
		}
	}
	return fps
}

// allIn reports whether ss is not empty and every one of ss is in set.
func allIn(ss []string, set map[string]bool) bool {
	for _, s := range ss {
		if !set[s] {
			return false
		}
	}
	return len(ss) > 0
}
