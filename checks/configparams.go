package checks

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// The checks of list parameters' items (Rule.ParamItems): each says why
// an item is not what the parameter takes, in the API server's words.

// LabelKey refuses s unless it is a label key ("team",
// "app.kubernetes.io/name"): a key that is not one matches no object.
func LabelKey(s string) error {
	if errs := validation.IsQualifiedName(s); len(errs) > 0 {
		return fmt.Errorf("%q is not a label key: %s", s, strings.Join(errs, "; "))
	}
	return nil
}

// LabelKeyOrPair refuses s unless it is a label key, or a key and a value
// joined by "=" ("criticality=critical").
func LabelKeyOrPair(s string) error {
	key, val, hasVal := strings.Cut(s, "=")
	if err := LabelKey(key); err != nil {
		return err
	}
	if errs := validation.IsValidLabelValue(val); hasVal && len(errs) > 0 {
		return fmt.Errorf("%q is not a label value: %s", val, strings.Join(errs, "; "))
	}
	return nil
}

// NamespaceName refuses s unless it is a namespace's name.
func NamespaceName(s string) error {
	if errs := validation.IsDNS1123Label(s); len(errs) > 0 {
		return fmt.Errorf("%q is not a namespace name: %s", s, strings.Join(errs, "; "))
	}
	return nil
}
