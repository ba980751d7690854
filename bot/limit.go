package bot

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// MaxAnswerBytes is the largest API answer a host adapter reads by default:
// far above a manifest blob the bot would load (MaxFileBytes,
// base64-encoded in JSON) or a repository tree, far below what would
// exhaust memory. A listing may claim any size; only a bounded read
// protects against a body that does not end.
const MaxAnswerBytes = 64 << 20

// MaxFileBytes is the largest file a host adapter loads for a review. A
// larger one is not read: it is marked Unreadable, and a changed one
// becomes a finding. (The config's limits.maxFileBytes, 5 MiB by default,
// is what the checks read; this bound only keeps a host's 100 MiB blob
// out of memory.)
const MaxFileBytes = 10 << 20

// AnswerTooLargeError is the error a body read through LimitBody fails
// with once it sends more than its limit.
type AnswerTooLargeError struct {
	// Limit is the bound the body went over, in bytes.
	Limit int64
}

func (e *AnswerTooLargeError) Error() string {
	return fmt.Sprintf("answer larger than %d bytes: not read", e.Limit)
}

// AnswerTooLarge reports whether err says an answer went over its bound,
// and returns that bound.
func AnswerTooLarge(err error) (int64, bool) {
	var e *AnswerTooLargeError
	if errors.As(err, &e) {
		return e.Limit, true
	}
	return 0, false
}

// LimitBody wraps an answer's body so that reading more than n bytes fails
// with an error naming the limit, instead of growing without bound or
// being cut silently (a cut body could decode as a shorter, valid file).
func LimitBody(body io.ReadCloser, n int64) io.ReadCloser {
	return &limitedBody{rc: body, left: n, limit: n}
}

type limitedBody struct {
	rc          io.ReadCloser
	left, limit int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// One byte more tells a body of exactly the limit from a longer one.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, &AnswerTooLargeError{Limit: b.limit}
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

type answerLimitKey struct{}

// WithAnswerLimit returns ctx with a tighter bound on the answers of the
// requests made with it (a blob read to MaxFileBytes), for a transport that
// honours AnswerLimit.
func WithAnswerLimit(ctx context.Context, n int64) context.Context {
	return context.WithValue(ctx, answerLimitKey{}, n)
}

// AnswerLimit returns the bound WithAnswerLimit put on ctx, if any.
func AnswerLimit(ctx context.Context) (int64, bool) {
	n, ok := ctx.Value(answerLimitKey{}).(int64)
	return n, ok
}
