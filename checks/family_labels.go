package checks

// lblSection is the catalog section of the labels family.
const lblSection = "5. Labels"

// labelRules returns the rules of this family. Each rule has its own file.
func labelRules() []*Rule {
	return []*Rule{
		recommendedLabelsMissing,
		requiredLabelsMissing,
		templateLabelsNotPropagated,
	}
}
