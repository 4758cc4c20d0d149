package state

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/prometheus/common/version"
	bolt "go.etcd.io/bbolt"
)

// Format is the format of the state file this exporter writes, kept in the meta bucket (under
// "schema", the key every release has read): a binary refuses a file of a format newer than its
// own, since it would misread what was announced (an older release takes an open finding of a
// kind it does not know for one that cleared, and tells CloudStack that the cluster matches
// again). Raise it when a change to what the file holds would make the previous release
// misread it, and say so in docs/operations.md "Rolling back".
//
//  1. Up to release 0.1.0: the meta, hostkeys, notifier and history buckets.
//  2. The same buckets; the notifier's document may hold the operation side
//     (stuck_in_operation), node_version_mismatch findings, accepted-only sides and the
//     per-cluster day budget, which format 1's readers take for drift that cleared; and the
//     network and cluster sides (network_rule_missing, offering_missing), added before format 2
//     was released, so that no release reads format 2 without them. A file of format 1 is read
//     as it is and marked 2 when opened for writing.
const Format = 2

// keyWrittenBy is the meta key of the version of the exporter that last opened the file for
// writing: the error of a newer format names it, and the first start after an upgrade reads it
// (Store.PreviousVersion).
var keyWrittenBy = []byte("written_by")

// ErrNewerFormat marks a state file of a format newer than this exporter's: it was written by a
// newer release, and this one stops rather than read it (cks-drift-exporter exits 4,
// exporter.ExitNewerState).
var ErrNewerFormat = errors.New("the state file was written by a newer release")

// checkFormat reads the meta bucket's format (nil: none recorded yet, a new file) and returns
// it, or an error wrapping ErrNewerFormat for a format this exporter does not know.
func checkFormat(meta *bolt.Bucket) (int, error) {
	if meta == nil {
		return 0, nil
	}
	v := meta.Get(keySchema)
	if v == nil {
		return 0, nil
	}
	f, err := strconv.Atoi(string(v))
	if err != nil || f < 1 {
		return 0, fmt.Errorf("schema version %q is not a format number", v)
	}
	if f > Format {
		by := "a newer release"
		if w := meta.Get(keyWrittenBy); w != nil {
			by = fmt.Sprintf("cks-drift-exporter %.64q", w)
		}
		return f, fmt.Errorf("%w: it is in format %d, written by %s, and this exporter (%s) reads formats up to %d; "+
			"run that release or a newer one again, or start from an empty state as docs/operations.md \"Rolling back\" says",
			ErrNewerFormat, f, by, version.Version, Format)
	}
	return f, nil
}

// markFormat records this exporter's format and version in the meta bucket.
func markFormat(meta *bolt.Bucket) error {
	if err := meta.Put(keySchema, []byte(strconv.Itoa(Format))); err != nil {
		return err
	}
	return meta.Put(keyWrittenBy, []byte(version.Version))
}
