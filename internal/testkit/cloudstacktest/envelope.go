package cloudstacktest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// DateLayout is how CloudStack writes dates in API answers, e.g. 2024-06-05T07:51:22+0000.
const DateLayout = "2006-01-02T15:04:05-0700"

// CloudStack error codes (ApiErrorCode) the fake answers with.
const (
	ErrUnauthorized  = 401
	ErrParam         = 431 // PARAM_ERROR: bad or missing parameter, entity not found
	ErrUnknownCmd    = 432 // UNSUPPORTED_ACTION_ERROR: no such command or not allowed
	ErrAPILimit      = 429 // API_LIMIT_EXCEED
	ErrInternalError = 530 // INTERNAL_ERROR
)

// apiError is a CloudStack error answer: the HTTP status equals the error code.
type apiError struct {
	code int
	text string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d: %s", e.code, e.text) }

func paramError(format string, args ...any) *apiError {
	return &apiError{code: ErrParam, text: fmt.Sprintf(format, args...)}
}

// csErrorCode is the CSExceptionErrorCode CloudStack attaches: 4350 for
// InvalidParameterValueException, 9999 for ServerApiException; none on authentication failures.
func csErrorCode(code int) int {
	switch code {
	case ErrUnauthorized:
		return 0
	case ErrParam:
		return 4350
	default:
		return 9999
	}
}

// responseName is the envelope key CloudStack uses: the command lower-cased plus "response";
// requests without a command get "errorresponse".
func responseName(command string) string {
	if command == "" {
		return "errorresponse"
	}
	return strings.ToLower(command) + "response"
}

// errorBody is the error envelope, also used for the jobresult of a failed async job.
type errorBody struct {
	UUIDList    []string `json:"uuidList"`
	ErrorCode   int      `json:"errorcode"`
	CSErrorCode int      `json:"cserrorcode,omitempty"`
	ErrorText   string   `json:"errortext"`
}

func newErrorBody(e *apiError) errorBody {
	return errorBody{UUIDList: []string{}, ErrorCode: e.code, CSErrorCode: csErrorCode(e.code), ErrorText: e.text}
}

func writeJSON(w http.ResponseWriter, status int, command string, inner any) {
	body, err := json.Marshal(map[string]any{responseName(command): inner})
	if err != nil {
		// Only our own answer types reach here; a failure is a bug in the fake, reported the
		// way CloudStack reports its own bugs.
		status = ErrInternalError
		body = fmt.Appendf(nil, `{%q:{"uuidList":[],"errorcode":530,"cserrorcode":9999,"errortext":%q}}`,
			responseName(command), err.Error())
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(httpStatus(status))
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, command string, e *apiError) {
	writeJSON(w, e.code, command, newErrorBody(e))
}

// formatDate writes t as CloudStack does; the zero time stays empty so omitempty drops it.
func formatDate(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(DateLayout)
}

// listBody is the inner object of a list answer. CloudStack writes an empty list as {} (no count,
// no key), which is what omitempty produces when total is zero or the page is past the end.
func listBody(key string, total int, items []any) map[string]any {
	if len(items) == 0 {
		return map[string]any{}
	}
	return map[string]any{"count": total, key: items}
}

// httpStatus keeps a status net/http accepts (it panics outside 100-999), so an odd code a test
// injects becomes 530 instead of crashing the server.
func httpStatus(code int) int {
	if code < 100 || code > 999 {
		return ErrInternalError
	}
	return code
}
