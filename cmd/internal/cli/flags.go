package cli

import "flag"

// ParseFlags parses flags that may come before, between or after the
// positional arguments (`prodready check deploy/ --format json`), and returns
// the positional ones. "--" ends flag parsing.
func ParseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
