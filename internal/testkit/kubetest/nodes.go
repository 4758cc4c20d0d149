package kubetest

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// resourceVersion is the list's fixed resource version: the fake's nodes change only when a test
// says so, and a continue token is bound to it as the real one is.
const resourceVersion = "48213"

// serve authenticates the caller, then answers GET /api/v1/nodes; every other path is 404.
func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	user, canList := s.authenticate(r)
	s.mu.Lock()
	s.requests = append(s.requests, Request{Path: r.URL.Path, Limit: q.Get("limit"), Continue: q.Get("continue"), User: user})
	delay, status, maxLimit, answer := s.delay, s.status, s.maxLimit, s.answer
	nodes := append([]Node(nil), s.nodes...)
	s.mu.Unlock()
	if answer != nil {
		answer(w, r)
		return
	}

	if delay > 0 {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
			return
		case <-s.closed:
			return
		}
	}
	switch {
	case user == "":
		writeStatus(w, http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized")
		return
	case r.URL.Path != "/api/v1/nodes" || r.Method != http.MethodGet:
		writeStatus(w, http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource")
		return
	case !canList:
		writeStatus(w, http.StatusForbidden, metav1.StatusReasonForbidden,
			`nodes is forbidden: User "`+user+`" cannot list resource "nodes" in API group "" at the cluster scope`)
		return
	case status != 0:
		writeStatus(w, status, metav1.StatusReasonInternalError, http.StatusText(status))
		return
	}

	start, ok := decodeContinue(q.Get("continue"))
	if !ok || start > len(nodes) {
		writeStatus(w, http.StatusGone, metav1.StatusReasonExpired,
			"The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.")
		return
	}
	limit, err := strconv.Atoi(q.Get("limit"))
	if err != nil || limit <= 0 {
		limit = len(nodes)
	}
	if maxLimit > 0 {
		limit = min(limit, maxLimit)
	}
	end := min(start+limit, len(nodes))
	list := corev1.NodeList{
		TypeMeta: metav1.TypeMeta{Kind: "NodeList", APIVersion: "v1"},
		ListMeta: metav1.ListMeta{ResourceVersion: resourceVersion},
		Items:    make([]corev1.Node, 0, end-start),
	}
	if end < len(nodes) {
		list.Continue = encodeContinue(end)
		remaining := int64(len(nodes) - end)
		list.RemainingItemCount = &remaining
	}
	for i, n := range nodes[start:end] {
		list.Items = append(list.Items, node(n, start+i))
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

// node is the object a kubeadm node's kubelet registers, trimmed of nothing the list shows.
func node(n Node, i int) corev1.Node {
	created := metav1.NewTime(time.Date(2024, 6, 5, 7, 51, 22, 0, time.UTC))
	addr := "10.1.1." + strconv.Itoa(10+i%240)
	labels := map[string]string{
		"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
		"kubernetes.io/arch": "amd64", "kubernetes.io/hostname": n.Name, "kubernetes.io/os": "linux",
	}
	if strings.Contains(n.Name, "-control-") || strings.Contains(n.Name, "-master") {
		labels["node-role.kubernetes.io/control-plane"] = ""
	}
	return corev1.Node{
		TypeMeta: metav1.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              n.Name,
			UID:               types.UID("6f1c2a1e-0000-4000-8000-" + strconv.FormatInt(int64(100000000000+i), 10)),
			ResourceVersion:   strconv.Itoa(40000 + i),
			CreationTimestamp: created,
			Labels:            labels,
			Annotations: map[string]string{
				"kubeadm.alpha.kubernetes.io/cri-socket":                 "unix:///run/containerd/containerd.sock",
				"node.alpha.kubernetes.io/ttl":                           "0",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
			},
		},
		Spec: corev1.NodeSpec{PodCIDR: "10.244." + strconv.Itoa(i%256) + ".0/24"},
		Status: corev1.NodeStatus{
			Capacity: corev1.ResourceList{
				corev1.ResourceCPU:    resource.MustParse("2"),
				corev1.ResourceMemory: resource.MustParse("2030940Ki"),
				corev1.ResourcePods:   resource.MustParse("110"),
			},
			Conditions: []corev1.NodeCondition{{
				Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				Message: "kubelet is posting ready status", LastHeartbeatTime: created, LastTransitionTime: created,
			}},
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: addr},
				{Type: corev1.NodeHostName, Address: n.Name},
			},
			NodeInfo: corev1.NodeSystemInfo{
				MachineID: "2b0a4c5e9d8f4e3a9b1c0d2e3f4a5b6c", SystemUUID: n.SystemUUID,
				BootID: "c1d2e3f4-0000-4000-8000-000000000001", KernelVersion: "5.15.0-91-generic",
				OSImage: "Ubuntu 22.04.3 LTS", ContainerRuntimeVersion: "containerd://1.7.13",
				KubeletVersion: cmp.Or(n.KubeletVersion, "v1.28.4"), OperatingSystem: "linux", Architecture: "amd64",
			},
		},
	}
}

// writeStatus answers with a metav1.Status, the body every API server error carries.
func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Message: msg, Reason: reason, Code: int32(code),
	})
}

// encodeContinue and decodeContinue make an opaque token, as the real server's is opaque (there a
// base64 of the resource version and the last key).
func encodeContinue(next int) string {
	return base64.RawURLEncoding.EncodeToString([]byte(resourceVersion + "/" + strconv.Itoa(next)))
}

func decodeContinue(tok string) (int, bool) {
	if tok == "" {
		return 0, true
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil {
		return 0, false
	}
	rv, pos, ok := strings.Cut(string(raw), "/")
	n, err := strconv.Atoi(pos)
	return n, ok && rv == resourceVersion && err == nil && n >= 0
}
