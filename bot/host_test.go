package bot

import (
	"context"
	"testing"
)

// baseHost is a Host that can also look up a merge base.
type baseHost struct{ Host }

func (baseHost) MergeBase(context.Context, PullRequest) (string, error) { return "merge-base", nil }

// guard wraps a Host as a durable queue's guard does.
type guard struct{ Host }

func (g guard) Unwrap() Host { return g.Host }

// TestAsFindsWhatAWrappedHostCan: a wrapper that embeds only Host hides
// the wrapped host's other methods from a type assertion; As finds them,
// and prefers the wrapper's own.
func TestAsFindsWhatAWrappedHostCan(t *testing.T) {
	var h Host = guard{baseHost{}}
	if _, ok := h.(mergeBaser); ok {
		t.Fatal("the test's wrapper should hide MergeBase from a type assertion")
	}
	mb, ok := As[mergeBaser](h)
	if !ok {
		t.Fatal("As did not find the wrapped host's MergeBase")
	}
	if got, _ := mb.MergeBase(context.Background(), PullRequest{}); got != "merge-base" {
		t.Errorf("MergeBase = %q", got)
	}
	if _, ok := As[Wrapper](h); !ok {
		t.Error("As did not return the wrapper itself for an interface it has")
	}
	if _, ok := As[Committer](h); ok {
		t.Error("As found a Committer neither host is")
	}
}
