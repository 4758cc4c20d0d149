package ssh

import (
	"errors"
	"fmt"
	"os"

	gossh "golang.org/x/crypto/ssh"
)

// ReadPrivateKey reads the SSH private key the exporter logs in with. Start-up, reload and
// --config.check all call it, so that a key that would fail one fails them all, with an error
// that names the file and says what is wrong with it (never what it holds).
func ReadPrivateKey(path string) (gossh.Signer, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	signer, err := gossh.ParsePrivateKey(pem)
	if err == nil {
		return signer, nil
	}
	var missing *gossh.PassphraseMissingError
	if errors.As(err, &missing) {
		return nil, fmt.Errorf("%s is protected by a passphrase; the exporter needs a key without one (ssh-keygen -p -N '' -f <copy of the key>)", path)
	}
	if _, _, _, _, pubErr := gossh.ParseAuthorizedKey(pem); pubErr == nil {
		return nil, fmt.Errorf("%s holds a public key; give the private key (the file without .pub)", path)
	}
	return nil, fmt.Errorf("%s: %w", path, err)
}

// userSigners returns the signers to offer for key. An RSA key is offered twice, with
// rsa-sha2-512 and then rsa-sha2-256: the ssh package picks one algorithm per signer, sshd
// advertises both, and a node that accepts only one of them would refuse the key otherwise.
func userSigners(key gossh.Signer) []gossh.Signer {
	as, ok := key.(gossh.AlgorithmSigner)
	if !ok || key.PublicKey().Type() != gossh.KeyAlgoRSA {
		return []gossh.Signer{key}
	}
	var out []gossh.Signer
	for _, algo := range []string{gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256} {
		s, err := gossh.NewSignerWithAlgorithms(as, []string{algo})
		if err != nil {
			return []gossh.Signer{key}
		}
		out = append(out, s)
	}
	return out
}
