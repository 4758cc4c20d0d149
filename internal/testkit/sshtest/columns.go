package sshtest

import "maps"

// SetVersions sets the kubelet version each node reports (status.nodeInfo.kubeletVersion); a
// node without one prints "<none>" in custom columns, as kubectl does for a missing field. The
// table, its wide form, custom columns and JSON show versions; -o name does not.
func (s *Server) SetVersions(versions map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.versions = maps.Clone(versions)
}
