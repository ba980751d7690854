package jsqueue

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/prodready/prodready/bot"
)

// message is a job as stored in the stream: what rebuilds it on any
// replica. It carries the pull request's identity, never the webhook body.
// Its fields are spelled here, not by bot.PullRequest's Go names, so that
// a job stored by one version reads back in the next.
type message struct {
	Version      int       `json:"v"`
	DeliveryID   string    `json:"delivery_id"`
	Event        string    `json:"event"`
	Installation int64     `json:"installation,omitempty"`
	Queued       time.Time `json:"queued"`
	PR           prJSON    `json:"pr"`
	// Fix is set for a request to commit fixes (bot.Job.Fix).
	Fix *fixJSON `json:"fix,omitempty"`
	// Rerun is set for a review asked for again (bot.Job.Rerun).
	Rerun bool `json:"rerun,omitempty"`
}

type fixJSON struct {
	Mode    string `json:"mode"`
	Head    string `json:"head,omitempty"`
	Press   string `json:"press,omitempty"`
	By      string `json:"by,omitempty"`
	ByID    int64  `json:"by_id,omitempty"`
	Thread  string `json:"thread,omitempty"`
	Refusal string `json:"refusal,omitempty"`
}

type prJSON struct {
	Host   string `json:"host"`
	Repo   string `json:"repo"`
	RepoID int64  `json:"repo_id,omitempty"`
	// HeadRepoID is the head branch's repository, when it is another (a
	// fork's, on GitLab).
	HeadRepoID int64  `json:"head_repo_id,omitempty"`
	Number     int    `json:"number"`
	BaseSHA    string `json:"base_sha,omitempty"`
	HeadSHA    string `json:"head_sha"`
	BaseRef    string `json:"base_ref,omitempty"`
	HeadRef    string `json:"head_ref,omitempty"`
	Draft      bool   `json:"draft,omitempty"`
	Fork       bool   `json:"fork,omitempty"`
	URL        string `json:"url,omitempty"`
}

func encodeJob(job bot.Job, now time.Time) ([]byte, error) {
	pr := job.PR
	m := message{Version: 1, DeliveryID: job.DeliveryID, Event: job.Event, Installation: job.Installation, Queued: now.UTC(), Rerun: job.Rerun,
		PR: prJSON{Host: pr.Host, Repo: pr.Repo, RepoID: pr.RepoID, HeadRepoID: pr.HeadRepoID, Number: pr.Number, BaseSHA: pr.BaseSHA, HeadSHA: pr.HeadSHA,
			BaseRef: pr.BaseRef, HeadRef: pr.HeadRef, Draft: pr.Draft, Fork: pr.Fork, URL: pr.URL}}
	if f := job.Fix; f != nil {
		m.Fix = &fixJSON{Mode: string(f.Mode), Head: f.Head, Press: f.Press, By: f.By, ByID: f.ByID, Thread: f.Thread, Refusal: f.Refusal}
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encoding job %s: %w", job.DeliveryID, err)
	}
	if len(data) > MaxJobBytes {
		return nil, fmt.Errorf("job %s is %d bytes encoded, over %d", job.DeliveryID, len(data), MaxJobBytes)
	}
	return data, nil
}

func decodeJob(data []byte) (bot.Job, time.Time, error) {
	var m message
	if err := json.Unmarshal(data, &m); err != nil {
		return bot.Job{}, time.Time{}, fmt.Errorf("decoding job: %w", err)
	}
	if m.Version != 1 {
		return bot.Job{}, time.Time{}, fmt.Errorf("job format %d is not one this version reads", m.Version)
	}
	p := m.PR
	if p.Host == "" || p.Repo == "" {
		return bot.Job{}, time.Time{}, fmt.Errorf("job %s names no host or repository", m.DeliveryID)
	}
	job := bot.Job{DeliveryID: m.DeliveryID, Event: m.Event, Installation: m.Installation, Rerun: m.Rerun, PR: bot.PullRequest{
		Host: p.Host, Repo: p.Repo, RepoID: p.RepoID, HeadRepoID: p.HeadRepoID, Number: p.Number, BaseSHA: p.BaseSHA, HeadSHA: p.HeadSHA,
		BaseRef: p.BaseRef, HeadRef: p.HeadRef, Draft: p.Draft, Fork: p.Fork, URL: p.URL}}
	if f := m.Fix; f != nil {
		job.Fix = &bot.FixRequest{Mode: bot.FixMode(f.Mode), Head: f.Head, Press: f.Press, By: f.By, ByID: f.ByID, Thread: f.Thread, Refusal: f.Refusal}
	}
	return job, m.Queued, nil
}

// msgID is the job's Nats-Msg-Id: its delivery id (bounded by the
// webhook), or for a job without one, what the job is about.
func msgID(job bot.Job) string {
	if job.DeliveryID != "" {
		return bot.BoundDeliveryID(job.DeliveryID)
	}
	pr := job.PR
	sum := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d\x00%d\x00%s\x00%s", pr.Host, pr.Repo, pr.RepoID, pr.Number, pr.HeadSHA, job.Event))
	return "job:" + hex.EncodeToString(sum[:16])
}

// token makes s one subject or key token: letters, digits, '-' and '_'
// as they are, any other byte as =XX.
func token(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "=%02X", c)
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// leaseKey is the lease key of job's pull request: host, installation (or
// project), repository and number. GitHub's repository is its name under
// the installation; GitLab's project id names it where known.
func leaseKey(job bot.Job) string {
	pr := job.PR
	owner := strconv.FormatInt(job.Installation, 10)
	if job.Installation == 0 {
		owner = "p" + strconv.FormatInt(pr.RepoID, 10)
	}
	return strings.Join([]string{"pr", token(pr.Host), owner, token(pr.Repo), strconv.Itoa(pr.Number)}, ".")
}

// runKey is the key of the check run record of the job with id.
func runKey(id string) string {
	sum := sha256.Sum256([]byte(id))
	return "run." + hex.EncodeToString(sum[:16])
}
