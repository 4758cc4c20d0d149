package cloudstacktest

import (
	"net/http"
	"net/url"
	"strings"
	"time"
)

// request is one authenticated API call being answered under the server's lock.
type request struct {
	command    string
	params     url.Values
	now        time.Time
	countDelta int // from a Fault: added to the count of list answers
}

// command is one API command the fake implements. check runs when the call arrives and stands for
// CloudStack's parameter validation (annotations such as length = 999), which fails the call
// itself even for async commands; run is the command's execute(), whose failures, for an async
// command, only show in queryAsyncJobResult.
type command struct {
	async bool
	// since is the minor version of the first release line that has the command (4.20: 20); 0: every
	// line. On an older line the command does not exist.
	since int
	check func(s *Server, r *request) *apiError
	run   func(s *Server, r *request) (any, *apiError)
}

// commands maps the exact, case-sensitive API names (CloudStack does not fold case) to their
// implementation. Which ones are async follows cloudstack-go v2.19.0: the ones whose SDK method
// waits on GetAsyncJobResult.
var commands = map[string]command{
	"listVirtualMachines":    {run: (*Server).listVirtualMachines},
	"listKubernetesClusters": {run: (*Server).listKubernetesClusters},

	"listKubernetesSupportedVersions": {run: (*Server).listKubernetesSupportedVersions},
	"listPortForwardingRules":         {run: (*Server).listPortForwardingRules},
	"listPublicIpAddresses":           {run: (*Server).listPublicIpAddresses},
	"listServiceOfferings":            {run: (*Server).listServiceOfferings},
	"listFirewallRules":               {run: (*Server).listFirewallRules},
	"listLoadBalancerRules":           {run: (*Server).listLoadBalancerRules},
	"listNetworkACLs":                 {run: (*Server).listNetworkACLs},
	"listNetworkACLLists":             {run: (*Server).listNetworkACLLists},
	"listNetworks":                    {run: (*Server).listNetworks},
	"generateAlert":                   {async: true, check: (*Server).checkGenerateAlert, run: (*Server).generateAlert},
	"archiveAlerts":                   {run: (*Server).archiveAlerts},
	"listAlerts":                      {run: (*Server).listAlerts},
	"listEvents":                      {run: (*Server).listEvents},
	"addAnnotation":                   {run: (*Server).addAnnotation},
	"listAnnotations":                 {run: (*Server).listAnnotations},
	"removeAnnotation":                {run: (*Server).removeAnnotation},
	"queryAsyncJobResult":             {run: (*Server).queryAsyncJobResult},

	"getKubernetesClusterConfig": {run: (*Server).getKubernetesClusterConfig},
}

// ServeHTTP answers one API call: record it, apply latency and faults, authenticate, then run
// the command against the world.
func (s *Server) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w := &countingWriter{ResponseWriter: rw}
	defer func() { s.answerBytes.Add(w.n) }()
	parseErr := r.ParseForm() // on error r.Form still holds what could be parsed, for the log
	params := cloneValues(r.Form)
	name := params.Get("command")
	now := time.Now()

	s.mu.Lock()
	callSeq := s.recordCall(name, params, now)
	s.enter()
	defer s.leave()
	latency := s.latency
	fault := s.takeFault(name)
	s.mu.Unlock()

	if parseErr != nil {
		writeError(w, name, paramError("cannot parse request: %v", parseErr))
		return
	}

	if !s.wait(r.Context(), latency+fault.Delay) {
		return // the client gave up or the server is closing: nobody reads an answer
	}
	if fault.answer(w, name) {
		return
	}
	if reason := authenticate(params, s.apiKey, s.secret, time.Now()); reason != "" {
		// CloudStack gives every cause the same answer; the cause only goes to the call log.
		s.noteRefusal(callSeq, reason)
		writeError(w, name, &apiError{code: ErrUnauthorized,
			text: "unable to verify user credentials and/or request signature"})
		return
	}
	if params.Get("response") != "json" {
		writeError(w, name, paramError("this fake only answers response=json"))
		return
	}
	if body, ok := s.recordedAnswer(name, params); ok {
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_, _ = w.Write(body)
		return
	}
	cmd, ok := commands[name]
	if ok && cmd.since > 0 {
		s.Read(func(w *World) { ok = w.since(cmd.since) })
	}
	if !ok {
		writeError(w, name, &apiError{code: ErrUnknownCmd,
			text: "The given command:" + name + " does not exist or it is not available for user"})
		return
	}

	req := &request{command: name, params: params, now: now, countDelta: fault.CountDelta}
	status, inner := s.execute(cmd, req)
	writeJSON(w, status, name, inner) // outside the lock: a slow reader must not stall the server
}

// execute runs a command under the lock and returns the HTTP status and inner answer. The answer
// holds only copies (JSON structs and maps), never pointers into the world.
func (s *Server) execute(cmd command, r *request) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cmd.check != nil {
		if e := cmd.check(s, r); e != nil {
			return e.code, newErrorBody(e)
		}
	}
	result, e := cmd.run(s, r)
	if cmd.async {
		return http.StatusOK, map[string]string{"jobid": s.startJob(r, result, e)}
	}
	if e != nil {
		return e.code, newErrorBody(e)
	}
	return http.StatusOK, result
}

func cloneValues(v url.Values) url.Values {
	c := make(url.Values, len(v))
	for k, vs := range v {
		c[k] = append([]string(nil), vs...)
	}
	return c
}

// boolParam reads a boolean parameter the way CloudStack's parameter parser does (only "true",
// in any case, is true).
func boolParam(p url.Values, name string) bool {
	return strings.EqualFold(p.Get(name), "true")
}

// listParam splits a CommandType.LIST parameter: comma-separated, blanks dropped.
func listParam(p url.Values, name string) []string {
	var out []string
	for _, v := range p[name] {
		for _, item := range strings.Split(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
	}
	return out
}
