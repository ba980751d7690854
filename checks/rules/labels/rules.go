package labels

import (
	"github.com/prodready/prodready/checks"
)

// section is the catalog section of the labels family.
const section = "5. Labels"

// Rules returns the rules of this section. Each rule has its own file.
func Rules() []*checks.Rule {
	return []*checks.Rule{
		recommendedLabelsMissing,
		requiredLabelsMissing,
		templateLabelsNotPropagated,
	}
}
