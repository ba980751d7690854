package bot

import "errors"

// Job is one review to run, from a webhook delivery or the Action.
type Job struct {
	// DeliveryID is the host's id of the delivery (X-GitHub-Delivery;
	// GitLab's Idempotency-Key or X-Gitlab-Event-UUID). A delivery id that
	// already completed is not run twice.
	DeliveryID string
	// Event names what started it, e.g. "pull_request.synchronize".
	Event string
	PR    PullRequest
	// Installation is the GitHub App installation the delivery came to
	// (0 for hosts without one): with PR.Host it names the Host that acts
	// for the job, when the job is read back from a durable queue.
	Installation int64
	// Host is the adapter that reads and publishes for this job; a durable
	// queue does not store it, and sets it again from a HostFor.
	Host Host
	// Fix, when set, makes the job commit fixes (Applier.Run, see
	// Dispatch) instead of reviewing.
	Fix *FixRequest
	// Rerun is set when someone asked for the review again (GitHub's
	// "Re-run" of the bot's check run or suite): a durable queue reviews
	// it even when the same head, base and config were reviewed already,
	// but still once per head at a time.
	Rerun bool
}

// HostFor returns the Host that acts for a job read back from a durable
// queue, from its PR.Host and Installation.
type HostFor func(job Job) (Host, error)

// Enqueuer accepts jobs for the worker pool. Webhook handlers of every host
// hand their jobs to it and answer the delivery from its result.
type Enqueuer interface {
	// Enqueue queues job without blocking. It returns ErrQueueFull when the
	// queue is full (answer 503 so the host redelivers), ErrDuplicate
	// when the delivery id already completed or is queued, and an error
	// wrapping ErrCoalesced (a *CoalescedError) when the review the job
	// asks for is queued, running or done already (answer 2xx).
	Enqueue(job Job) error
}

// Errors Enqueue returns.
var (
	ErrQueueFull = errors.New("review queue is full")
	ErrDuplicate = errors.New("delivery already handled")
	// ErrCoalesced is what a *CoalescedError matches (errors.Is).
	ErrCoalesced = errors.New("review already queued or done")
	// ErrStorageFull is a durable queue whose store cannot take a job
	// because its disk, or the storage JetStream may use, is full (answer
	// 503: the host redelivers, and the replica reports itself not ready
	// until the store has room again).
	ErrStorageFull = errors.New("queue storage is full")
	// ErrQueueUnavailable is a durable queue that cannot store a job
	// because its store does not answer (JetStream disabled, down or
	// unreachable); answer 503 like ErrStorageFull.
	ErrQueueUnavailable = errors.New("queue storage (JetStream) is unavailable")
)

// Reasons a delivery is absorbed into a review it would only repeat
// (CoalescedError.Reason and the reason label of
// prodready_deliveries_coalesced_total).
const (
	// CoalescedPending: a job for the same head and base is queued or
	// running.
	CoalescedPending = "pending"
	// CoalescedReviewed: the same head was reviewed against the same base
	// (and so the same config at base) already.
	CoalescedReviewed = "reviewed"
)

// A CoalescedError is Enqueue's answer to a job absorbed into another:
// the delivery is acknowledged and starts no job and no check run.
type CoalescedError struct {
	// Reason is CoalescedPending or CoalescedReviewed.
	Reason string
}

// Error says what absorbed the delivery.
func (e *CoalescedError) Error() string {
	if e.Reason == CoalescedReviewed {
		return "this head was reviewed against this base already"
	}
	return "a review of this head is queued or running"
}

// Is makes errors.Is(err, ErrCoalesced) true.
func (e *CoalescedError) Is(target error) bool { return target == ErrCoalesced }
