package config

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
)

// redactedSecret is what every printed form of a Secret shows instead of it.
const redactedSecret = "<secret>"

// Secret is a credential read from the configuration. Every way Go usually
// prints a value (fmt, JSON, YAML, slog) shows "<secret>" instead, so a Config
// can be logged or served without leaking the CloudStack keys; code that needs
// the key converts it with string(s).
type Secret string

// String hides the secret wherever a fmt.Stringer is used.
func (s Secret) String() string { return redactedSecret }

// GoString hides the secret from fmt's %#v.
func (s Secret) GoString() string { return `config.Secret("` + redactedSecret + `")` }

// Format hides the secret from every fmt verb. String alone is not enough:
// for a verb that does not suit a string, such as %d, fmt prints the raw
// value.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = io.WriteString(f, s.GoString())
		return
	}
	_, _ = io.WriteString(f, redactedSecret)
}

// MarshalJSON hides the secret from encoding/json and slog's JSON handler.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(redactedSecret) }

// MarshalYAML hides the secret from Config.Redacted and any other YAML output.
func (s Secret) MarshalYAML() (any, error) { return redactedSecret, nil }

// LogValue hides the secret from slog whatever handler is used.
func (s Secret) LogValue() slog.Value { return slog.StringValue(redactedSecret) }
