package shutdown

import (
	"github.com/prodready/prodready/checks"
)

// section is the catalog section of the shutdown family.
const section = "2. Graceful shutdown and signals"

// Rules returns the rules of this section. Each rule has its own file.
func Rules() []*checks.Rule {
	return []*checks.Rule{
		prestopHookMissing,
		terminationGraceTooShort,
		shellWrappedEntrypoint,
	}
}
