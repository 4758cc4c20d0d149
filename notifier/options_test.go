package notifier_test

import (
	"errors"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/notifier"
)

// TestOptionsRefusedNotDefaulted: the notifier takes its alert types from the configuration and
// has none of its own. New refuses a range that leaves no type for findings, before it reads the
// state; Configure refuses one and keeps the settings it has.
func TestOptionsRefusedNotDefaulted(t *testing.T) {
	t.Parallel()
	e := newNotifierEnv(t, notifier.Options{})
	for _, r := range []notifier.TypeRange{{}, {Min: 20000, Max: 20000}, {Min: 20001, Max: 20000}, {Min: -5, Max: 10}} {
		o := notifier.Options{Types: r, Concurrency: 1}
		if _, err := notifier.New(nil, e.store, o, nil, nil, nil); !errors.Is(err, notifier.ErrInvalidOptions) {
			t.Errorf("New with alert types %+v: error %v, want ErrInvalidOptions", r, err)
		}
		if err := e.n.Configure(nil, o); !errors.Is(err, notifier.ErrInvalidOptions) {
			t.Errorf("Configure with alert types %+v: error %v, want ErrInvalidOptions", r, err)
		}
	}
	// The refused Configure calls left the notifier working with its CloudStack and range.
	e.notify(e.status(nodeFinding(e.cluster.Name, "ghost")))
	if got := e.alerts(); len(got) != 1 || got[0].Type < 20000 || got[0].Type > 29999 {
		t.Errorf("alerts after refused reconfigurations: %+v, want one with a type in 20000-29999", got)
	}
}
