package jsqueue

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/prodready/prodready/bot"
	"github.com/prodready/prodready/checks"
)

// A review depends on the pull request's head, its base and the config at
// that base, and on nothing a delivery says besides. Deliveries that
// would only repeat a review (a reopen, a redelivery under a new id, a
// push event naming the same head) are absorbed, so that a fork author
// who closes and reopens a pull request in a loop spends no API call of
// the installation's:
//
//   - done.<pull request> in the reviewed bucket is the review completed
//     last: its head, base and the hash of the config it read at base.
//     A delivery for that head and base is absorbed at intake (the config
//     is read at the base commit, so the same base is the same config).
//     A job that gets past intake (two deliveries at once, a base the
//     event does not carry) is absorbed by its worker, under the pull
//     request's lease, before any API call but GitLab's resolution of
//     the base (one call, cached by the host).
//   - pend.<pull request> is the job queued or running for the pull
//     request's newest delivered head: a delivery for that head and base
//     is absorbed while the stream still holds that job.
//   - A re-run (bot.Job.Rerun) ignores done, but joins a pending job of
//     its head (marking it a re-run, so that its worker reviews even when
//     done says the head was reviewed): one review per head at a time.
//
// The records live in JetStream, beside the leases and run records, so
// that every replica sees them; done expires after ReviewedTTL.

// doneRecord is the review completed last for a pull request.
type doneRecord struct {
	Head string `json:"head"`
	// Base is the base commit reviewed against: the event's, or the one
	// the host resolved (GitLab).
	Base string `json:"base"`
	// Config is configHash of the .prodready.yaml the review read at
	// Base (empty when it read none through the host).
	Config   string    `json:"config,omitempty"`
	Delivery string    `json:"delivery,omitempty"`
	Reviewed time.Time `json:"reviewed"`
}

// pendingRecord is the job queued or running for a pull request's newest
// delivered head.
type pendingRecord struct {
	Head string `json:"head"`
	Base string `json:"base,omitempty"`
	// ID is the job's message id, Seq its sequence in the stream: while
	// the stream holds Seq the job is queued or running.
	ID  string `json:"id"`
	Seq uint64 `json:"seq"`
	// Rerun is set when a re-run was asked for while the job was pending:
	// its worker reviews even a head reviewed already.
	Rerun  bool      `json:"rerun,omitempty"`
	Queued time.Time `json:"queued"`
}

// coalescible reports whether job is a review that names its pull request
// and head (a fix request is never absorbed).
func coalescible(job bot.Job) bool {
	return job.Fix == nil && job.PR.Number != 0 && job.PR.HeadSHA != ""
}

// doneKey and pendKey are the reviewed bucket's keys of job's pull request.
func doneKey(job bot.Job) string { return "done." + strings.TrimPrefix(leaseKey(job), "pr.") }
func pendKey(job bot.Job) string { return "pend." + strings.TrimPrefix(leaseKey(job), "pr.") }

// configHash names the content of a config file ("none" for no file).
func configHash(data []byte) string {
	if data == nil {
		return "none"
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// getRecord reads key into v; ok is false when it is absent or
// unreadable, or the bucket did not answer (then nothing is absorbed).
func (q *Queue) getRecord(ctx context.Context, key string, v any) (rev uint64, ok bool) {
	e, err := q.reviewed.Get(ctx, key)
	if err != nil {
		if !errors.Is(err, jetstream.ErrKeyNotFound) {
			q.log.Warn("cannot read the reviewed record: the delivery is not absorbed", "key", key, "err", err.Error())
		}
		return 0, false
	}
	if json.Unmarshal(e.Value(), v) != nil {
		return 0, false
	}
	return e.Revision(), true
}

// queued reports whether the stream still holds the job at seq; an error
// answers false, so that a delivery is queued rather than lost.
func (q *Queue) queued(ctx context.Context, seq uint64) bool {
	if seq == 0 {
		return false
	}
	_, err := q.stream.GetMsg(ctx, seq)
	return err == nil
}

// absorbAtIntake reports whether the delivery of job would only repeat a
// review that is done or pending, and why (bot.Coalesced…). It costs no
// host API call.
func (q *Queue) absorbAtIntake(ctx context.Context, job bot.Job) (reason string, absorbed bool) {
	pr := job.PR
	if !job.Rerun && pr.BaseSHA != "" {
		var d doneRecord
		if _, ok := q.getRecord(ctx, doneKey(job), &d); ok && d.Head == pr.HeadSHA && d.Base == pr.BaseSHA {
			return bot.CoalescedReviewed, true
		}
	}
	var p pendingRecord
	rev, ok := q.getRecord(ctx, pendKey(job), &p)
	if !ok || p.Head != pr.HeadSHA || p.Base != pr.BaseSHA || !q.queued(ctx, p.Seq) {
		return "", false
	}
	if job.Rerun && !p.Rerun {
		p.Rerun = true
		data, _ := json.Marshal(p)
		if _, err := q.reviewed.Update(ctx, pendKey(job), data, rev); err != nil {
			return "", false // it changed meanwhile: the re-run is queued
		}
	}
	return bot.CoalescedPending, true
}

// markPending records job, just stored at seq, as its pull request's
// pending review.
func (q *Queue) markPending(ctx context.Context, job bot.Job, seq uint64) {
	data, _ := json.Marshal(pendingRecord{Head: job.PR.HeadSHA, Base: job.PR.BaseSHA, ID: msgID(job), Seq: seq, Rerun: job.Rerun, Queued: time.Now().UTC()})
	if _, err := q.reviewed.Put(ctx, pendKey(job), data); err != nil {
		// Deliveries for the head are queued, and their workers absorb them.
		bot.JobLogger(q.log, job).Warn("cannot record the pending review", "err", err.Error())
	}
}

// clearPending drops the pull request's pending record when it is job's.
func (q *Queue) clearPending(job bot.Job, log *slog.Logger) {
	if !coalescible(job) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var p pendingRecord
	rev, ok := q.getRecord(ctx, pendKey(job), &p)
	if !ok || p.ID != msgID(job) {
		return
	}
	if err := q.reviewed.Delete(ctx, pendKey(job), jetstream.LastRevision(rev)); err != nil && !errors.Is(err, jetstream.ErrKeyNotFound) {
		// Harmless: a record whose job left the stream absorbs nothing.
		log.Warn("cannot drop the pending review record", "err", err.Error())
	}
}

// reviewBase is the base commit job's review compares with: the event's,
// or the one the host resolves (GitLab's merge requests carry none; the
// host caches it per head). "" when neither is known.
func reviewBase(ctx context.Context, job bot.Job) string {
	if job.PR.BaseSHA != "" {
		return job.PR.BaseSHA
	}
	if rs, ok := bot.As[bot.Resolver](job.Host); ok {
		if pr, err := rs.Resolve(ctx, job.PR); err == nil && pr.HeadSHA == job.PR.HeadSHA {
			return pr.BaseSHA
		}
	}
	return ""
}

// alreadyReviewed reports whether job (not a re-run) asks for the review
// its pull request's done record holds: the same head against the same
// base. Its worker holds the pull request's lease, so no review of the
// pull request runs meanwhile. When it is, job's pending record is
// dropped; a re-run marked on that record since makes it false.
func (q *Queue) alreadyReviewed(ctx context.Context, job bot.Job) (doneRecord, bool) {
	if !coalescible(job) || job.Rerun {
		return doneRecord{}, false
	}
	for range 3 {
		var d doneRecord
		if _, ok := q.getRecord(ctx, doneKey(job), &d); !ok || d.Head != job.PR.HeadSHA || d.Base == "" {
			return doneRecord{}, false
		}
		var p pendingRecord
		rev, ok := q.getRecord(ctx, pendKey(job), &p)
		mine := ok && p.ID == msgID(job)
		if mine && p.Rerun {
			return doneRecord{}, false
		}
		if reviewBase(ctx, job) != d.Base {
			return doneRecord{}, false
		}
		if !mine {
			return d, true
		}
		err := q.reviewed.Delete(ctx, pendKey(job), jetstream.LastRevision(rev))
		if err == nil || errors.Is(err, jetstream.ErrKeyNotFound) {
			return d, true
		}
		// Changed since it was read (a re-run marked it): look again.
	}
	return doneRecord{}, false
}

// recordReviewed keeps job's published review as its pull request's done
// record, with the hash of the config it read at base.
func (q *Queue) recordReviewed(job bot.Job, config string, log *slog.Logger) {
	if !coalescible(job) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	base := reviewBase(ctx, job)
	if base == "" {
		return // nothing to key it on: the next delivery reviews again
	}
	data, _ := json.Marshal(doneRecord{Head: job.PR.HeadSHA, Base: base, Config: config, Delivery: job.DeliveryID, Reviewed: time.Now().UTC()})
	if _, err := q.reviewed.Put(ctx, doneKey(job), data); err != nil {
		log.Warn("cannot record the completed review: a later delivery for the head reviews it again", "err", err.Error())
	}
}

// ReadFile is the host's, noting the hash of the config the review reads
// at base (the done record keeps it).
func (g *guardedHost) ReadFile(ctx context.Context, pr bot.PullRequest, ref, path string) ([]byte, error) {
	data, err := g.Host.ReadFile(ctx, pr, ref, path)
	if err == nil && path == checks.ConfigFileName && ref != "" && (ref == pr.BaseSHA || ref == pr.BaseRef) {
		g.config = configHash(data)
	}
	return data, err
}
