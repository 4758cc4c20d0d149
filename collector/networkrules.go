package collector

// NetworkRules is what a source read of the rules of a cluster's network. A cluster whose
// Rules are nil, or carry Err, had its rules not read: the network side is not compared then,
// so that rules that could not be read never look missing.
type NetworkRules struct {
	Err string // why the rules of this cluster could not be read; empty when they were
}

// Read reports whether the rules were read.
func (r *NetworkRules) Read() bool { return r != nil && r.Err == "" }
