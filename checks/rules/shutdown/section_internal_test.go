package shutdown

import "github.com/prodready/prodready/checks"

// sectionCatalog is this section's rules and the input rules: a test inside
// the package cannot use the whole catalog, which imports the package.
var sectionCatalog = checks.NewCatalog(checks.InputRules(), Rules())
