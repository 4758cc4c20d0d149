package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector/nodes/ssh"
	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/exporter"
	"github.com/cks-drift-exporter/cks-drift-exporter/state"
)

// forgetHostKeys removes the pinned host keys of clusters, so that the next contact pins the
// node's new key. A uuid that matches no pin is an error (exit 1), named with the clusters that
// do have pins: a mistyped uuid must not look like a recovery.
func forgetHostKeys(configFile string, clusters []string, stdout, stderr io.Writer) int {
	cfg, err := config.Load(configFile)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	store, err := state.Open(cfg.Storage.Path, false)
	if err != nil {
		fmt.Fprintln(stderr, err)
		if errors.Is(err, state.ErrNewerFormat) {
			return exporter.ExitNewerState
		}
		return 1
	}
	defer store.Close()
	forget := make(map[string]bool, len(clusters))
	for _, c := range clusters {
		forget[strings.TrimSpace(c)] = true
	}
	matched := make(map[string]bool)
	var pinned []string
	err = store.ForgetHostKeys(func(id string) bool {
		c := ssh.PinCluster(id)
		if forget[c] {
			matched[c] = true
			return false
		}
		if !slices.Contains(pinned, c) {
			pinned = append(pinned, c)
		}
		return true
	})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	var done, missing []string
	for _, c := range clusters {
		c = strings.TrimSpace(c)
		if matched[c] {
			done = append(done, c)
		} else if !slices.Contains(missing, c) {
			missing = append(missing, c)
		}
	}
	if len(done) > 0 {
		fmt.Fprintf(stdout, "Forgot the pinned host keys of %s in %s\n", strings.Join(done, ", "), cfg.Storage.Path)
	}
	if len(missing) == 0 {
		return 0
	}
	fmt.Fprintf(stderr, "No pinned host key matched %s in %s: nothing was removed for it. Clusters with pinned host keys: %s\n",
		strings.Join(missing, ", "), cfg.Storage.Path, list(pinned, 20))
	return 1
}

// list names at most n items, saying how many more there are.
func list(items []string, n int) string {
	if len(items) == 0 {
		return "none"
	}
	slices.Sort(items)
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}
