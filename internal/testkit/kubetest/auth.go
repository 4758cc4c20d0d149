package kubetest

import (
	"net/http"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// authenticate returns the caller's user name and whether it may list nodes: a bearer token the
// server issued, or a client certificate its CA signed and that was not revoked. The TLS layer
// has already verified the certificate chain.
func (s *Server) authenticate(r *http.Request) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		canList, known := s.tokens[tok]
		if !known {
			return "", false
		}
		return "system:serviceaccount:kube-system:cks-drift-exporter", canList
	}
	if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
		leaf := r.TLS.PeerCertificates[0]
		if canList, known := s.certs[leaf.SerialNumber.String()]; known {
			return leaf.Subject.CommonName, canList
		}
	}
	return "", false
}

// Kubeconfig returns a kubeconfig for the server with cred, written by clientcmd as kubeadm
// writes admin.conf: the CA, server and credential inline.
func (s *Server) Kubeconfig(cred Credential) ([]byte, error) {
	return KubeconfigFor(s.URL(), s.CAPEM(), cred)
}

// KubeconfigFor writes a kubeconfig for server with ca and cred; tests use it to point a
// credential at another address or CA.
func KubeconfigFor(server string, ca []byte, cred Credential) ([]byte, error) {
	user := "kubernetes-admin"
	if cred.user != "" {
		user = cred.user
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kubernetes"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: ca}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: cred.Token, ClientCertificateData: cred.CertPEM, ClientKeyData: cred.KeyPEM}
	ctx := user + "@kubernetes"
	cfg.Contexts[ctx] = &clientcmdapi.Context{Cluster: "kubernetes", AuthInfo: user}
	cfg.CurrentContext = ctx
	return clientcmd.Write(*cfg)
}
