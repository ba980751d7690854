package checks

func RerunOf(r *Remembered) []int { return r.rerun }
func EnabledRulesOf(c *Config) []*Rule { return enabledRules(c) }
