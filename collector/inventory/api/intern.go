package api

// strs keeps one copy of each string a reading gives it, for the fields whose values repeat from
// item to item or from list to list: states, protocols, accounts, domains, zones, offerings, the
// public address (uuid and IP) that the rules of an isolated network share, and a VM's uuid and
// name, which the cluster's map, the VM list and the VM's rules each send. Every field decoded is a string of
// its own, and the inventory, then the snapshot, keep them for a cycle or two; at 10,000
// clusters the copies were several MiB. One reading (Inventory, ClusterInventory) has one strs,
// dropped with it; it holds the distinct values of the items that reading read, no more.
type strs map[string]string

// of returns t as a string, the same one for equal values; a nil strs copies nothing.
func (s strs) of(t text) string {
	if t == "" || s == nil {
		return string(t)
	}
	if v, ok := s[string(t)]; ok {
		return v
	}
	v := string(t)
	s[v] = v
	return v
}
