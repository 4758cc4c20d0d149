package cloudstacktest

import (
	"net/http"
	"strings"
	"time"
)

// Fault makes the server misbehave the way a loaded, broken or proxied CloudStack does, so that
// clients can be tested on answers the happy path never produces. Fields combine: Delay is
// waited first, then Status and RawBody decide the answer, before authentication (as a proxy in
// front of CloudStack would); CountDelta alone lets the call run normally.
type Fault struct {
	// Status answers with this CloudStack error code as HTTP status and envelope (530, 429, 401...).
	Status int
	// RetryAfter is sent as the Retry-After header, as a rate-limiting proxy does with 429.
	RetryAfter string
	// RawBody is answered verbatim (HTTP 200 unless Status is set), e.g. an HTML error page.
	RawBody string
	// Delay is waited before answering; it ends early when the client cancels or the server closes.
	Delay time.Duration
	// CountDelta is added to the count of list answers, so pages no longer add up to count.
	CountDelta int
	// Times limits the fault to the next n matching requests; 0 keeps it until ClearFaults.
	Times int
}

// SetFault installs f for command (compared without case); command "" matches every command
// that has no fault of its own. It replaces any fault already set for command.
func (s *Server) SetFault(command string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[strings.ToLower(command)] = &f
}

// ClearFaults removes every fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.faults)
}

// SetLatency adds d before every answer, to model a distant management server in benchmarks and
// demos.
func (s *Server) SetLatency(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.latency = d
}

// takeFault returns the fault that applies to this request (zero if none) and uses up one of
// its Times; the caller holds s.mu.
func (s *Server) takeFault(command string) Fault {
	key := strings.ToLower(command)
	f, ok := s.faults[key]
	if !ok {
		key = ""
		if f, ok = s.faults[key]; !ok {
			return Fault{}
		}
	}
	if f.Times > 0 {
		f.Times--
		if f.Times == 0 {
			delete(s.faults, key)
		}
	}
	return *f
}

// answer writes the fault's answer and reports whether it did; a fault without Status or RawBody
// lets the request go on.
func (f Fault) answer(w http.ResponseWriter, command string) bool {
	if f.Status == 0 && f.RawBody == "" {
		return false
	}
	if f.RetryAfter != "" {
		w.Header().Set("Retry-After", f.RetryAfter)
	}
	if f.RawBody != "" {
		status := f.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.Header().Set("Content-Type", "text/html; charset=UTF-8")
		w.WriteHeader(httpStatus(status))
		_, _ = w.Write([]byte(f.RawBody))
		return true
	}
	writeError(w, command, &apiError{code: f.Status, text: faultText(f.Status)})
	return true
}

// faultText is the errortext CloudStack gives for the codes tests inject most.
func faultText(code int) string {
	switch code {
	case ErrUnauthorized:
		return "unable to verify user credentials and/or request signature"
	case ErrAPILimit:
		return "The given command has reached its API request limit, please try again later"
	case ErrInternalError:
		return "Internal error executing command, please contact your system administrator"
	default:
		return "injected fault"
	}
}
