package examples

import (
	"bytes"
	"errors"
)

// alertmanager.yml ships for notifier.mode: direct, the default, where the exporter announces
// findings itself and Alertmanager only notifies people. For notifier.mode: alertmanager its
// bridge route and receiver are ready in blocks between these markers, commented out.
var (
	bridgeBegin = []byte("# >>> bridge")
	bridgeEnd   = []byte("# <<< bridge")
)

// EnableBridge returns alertmanager.yml with its bridge blocks uncommented, as an operator does
// for notifier.mode: alertmanager: within each block the first "# " after the indentation of
// every line is removed. It fails when the file has no complete block.
func EnableBridge(data []byte) ([]byte, error) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	var out bytes.Buffer
	in, blocks := false, 0
	for _, l := range lines {
		trimmed := bytes.TrimLeft(l, " ")
		switch {
		case bytes.HasPrefix(trimmed, bridgeBegin):
			if in {
				return nil, errors.New("alertmanager.yml: a bridge block opens inside another")
			}
			in = true
		case bytes.HasPrefix(trimmed, bridgeEnd):
			if !in {
				return nil, errors.New("alertmanager.yml: a bridge block closes that was not opened")
			}
			in, blocks = false, blocks+1
		case in && bytes.HasPrefix(trimmed, []byte("# ")):
			indent := l[:len(l)-len(trimmed)]
			l = append(append([]byte{}, indent...), trimmed[2:]...)
		}
		out.Write(l)
	}
	if in || blocks == 0 {
		return nil, errors.New("alertmanager.yml: no complete bridge block (# >>> bridge ... # <<< bridge)")
	}
	return out.Bytes(), nil
}
