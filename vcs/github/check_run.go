package github

// check is the part of a check_suite or check_run payload we read.
type check struct {
	ID           int64    `json:"id"`
	ExternalID   string   `json:"external_id"`
	HeadSHA      string   `json:"head_sha"`
	PullRequests []hookPR `json:"pull_requests"`
}

// checkFields are the fields of check_suite and check_run payloads beside
// those every payload has.
type checkFields struct {
	CheckSuite *check `json:"check_suite"`
	CheckRun   *check `json:"check_run"`
}

// checkSuite picks the pull request a rerequested check suite is for.
func (e *hookEvent) checkSuite() (hookPR, bool, error) {
	return e.rerequested(e.CheckSuite)
}

// checkRun picks the pull request a rerequested check run is for.
func (e *hookEvent) checkRun() (hookPR, bool, error) {
	return e.rerequested(e.CheckRun)
}

// rerequested returns the first pull request c names when the action asks
// for the check again (its head is c's head when the pull request names
// none).
func (e *hookEvent) rerequested(c *check) (hookPR, bool, error) {
	if e.Action != "rerequested" || c == nil || len(c.PullRequests) == 0 {
		return hookPR{}, false, nil
	}
	p := c.PullRequests[0]
	if p.Head.SHA == "" {
		p.Head.SHA = c.HeadSHA
	}
	return p, true, nil
}
