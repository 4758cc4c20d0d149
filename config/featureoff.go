package config

import "regexp"

// FeatureOff is a configured value known to turn a feature off: typically an older release's
// default that a configuration file spells out, which an upgrade keeps.
type FeatureOff struct {
	Key, Value string
	Feature    string // what the value turns off
	Fix        string
}

// String is the warning --config.check, the start-up log and the .deb's postinst show.
func (f FeatureOff) String() string {
	return f.Key + " " + f.Value + " turns off " + f.Feature + ": " + f.Fix
}

// namesOnly matches a kubectl command that prints node names only (-o name, as
// ssh.kubectl_command's default did up to release 0.1.0).
var namesOnly = regexp.MustCompile(`(^|\s)(-o|--output)(=|\s*)name(\s|$)`)

// knownOff is the one list of values known to turn a feature off; a new one is one entry.
var knownOff = []struct {
	key, feature, fix string
	value             func(c *Config) (string, bool)
}{
	{
		key:     "ssh.kubectl_command",
		feature: "the comparison of kubelet versions (node_version_mismatch), as the command prints node names without versions",
		fix:     "remove the key to take the default, which prints both (" + DefaultKubectlCommand + ")",
		value: func(c *Config) (string, bool) {
			return c.SSH.KubectlCommand, c.Check.NodeSource == NodeSourceSSH && namesOnly.MatchString(c.SSH.KubectlCommand)
		},
	},
}

// FeaturesOff returns the values of c known to turn a feature off (knownOff), each with the fix.
func FeaturesOff(c *Config) []FeatureOff {
	var out []FeatureOff
	for _, k := range knownOff {
		if v, off := k.value(c); off {
			out = append(out, FeatureOff{Key: k.key, Value: v, Feature: k.feature, Fix: k.fix})
		}
	}
	return out
}
