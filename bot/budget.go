package bot

import (
	"sync"
)

// DefaultBodyBudget is the in-flight webhook body budget `serve` starts
// with: the bytes of request bodies all webhook routes may hold at once.
const DefaultBodyBudget = 64 << 20

// BodyBudget bounds the bytes of webhook bodies held in memory at once,
// across all routes: a request reserves its body's size (its
// Content-Length, or MaxWebhookBody when it sends none) before a byte of
// it is read, and releases it once the body is decoded. A request whose
// reservation does not fit is refused (503) unread, so that many large
// bodies at once, signed or not, cannot exhaust the server's memory.
type BodyBudget struct {
	mu    sync.Mutex
	limit int64
	used  int64
}

// NewBodyBudget returns a budget of limit bytes. A limit below
// MaxWebhookBody is raised to it: a smaller one would refuse the largest
// legitimate delivery forever.
func NewBodyBudget(limit int64) *BodyBudget {
	return &BodyBudget{limit: max(limit, MaxWebhookBody)}
}

// Limit is the budget's size in bytes.
func (b *BodyBudget) Limit() int64 { return b.limit }

// Reserve takes n bytes of the budget when they fit and reports whether
// they did; a nil budget always fits.
func (b *BodyBudget) Reserve(n int64) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if n < 0 || b.used+n > b.limit {
		return false
	}
	b.used += n
	return true
}

// Release gives back n bytes taken by Reserve.
func (b *BodyBudget) Release(n int64) {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used = max(b.used-n, 0)
}

// InUse is the bytes reserved now.
func (b *BodyBudget) InUse() int64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}
