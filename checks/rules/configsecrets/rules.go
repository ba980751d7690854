package configsecrets

import (
	"github.com/prodready/prodready/checks"
)

// section is the catalog section of the configuration and secrets family.
const section = "7. Configuration and secrets"

// Rules returns the rules of this section. Each rule has its own file.
func Rules() []*checks.Rule {
	return []*checks.Rule{
		secretInEnv,
		sensitiveEnvLiteral,
		configmapSensitiveData,
		duplicateEnv,
	}
}
