package ssh

import "fmt"

// A control node may ask for a new key exchange whenever it likes, and the ssh package answers
// every request: each costs the exporter a key agreement and a host key signature check. A node
// that asked for one after every 256 bytes it wrote (the lowest RekeyThreshold of x/crypto/ssh)
// once took about 1.3 s of the exporter's CPU in a 5 s session. No legitimate node gets near:
// OpenSSH rekeys after gigabytes or hours (RekeyLimit), and a node list is kilobytes read in a
// second. The ssh package has no hook for key exchanges, and after the first one they are
// encrypted, so a wrapper of the connection cannot see them; but it calls the host key callback
// at the end of every key exchange, the first and each one the node asks for
// (handshakeTransport.client, x/crypto v0.59.0 ssh/handshake.go). So the callback counts them,
// and refusing the one past maxKeyExchanges closes the connection, which ends the session.

// maxKeyExchanges is the most key exchanges one connection may make: the first and a few more.
const maxKeyExchanges = 4

// errTooManyKeyExchanges is the reason of a session that the node asked for more key exchanges:
// what the node sent is not a node list but an attack on the exporter's CPU, so bad_output.
var errTooManyKeyExchanges = withDetail(reasonBadOutput,
	fmt.Sprintf("the node asked for more than %d ssh key exchanges in one session", maxKeyExchanges),
	fmt.Errorf("more than %d ssh key exchanges", maxKeyExchanges))

// exchange counts one key exchange of the connection, and refuses it past maxKeyExchanges.
func (v *verdict) exchange() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.exchanges++
	if v.exchanges > maxKeyExchanges {
		v.err = errTooManyKeyExchanges
		return v.err
	}
	return nil
}

// tooManyExchanges reports whether the connection was ended for asking too many key exchanges.
func (v *verdict) tooManyExchanges() bool {
	return v.get() == errTooManyKeyExchanges
}
