package cloudstacktest

import "time"

// Uuids of the admin account and user the fake answers as.
const (
	AdminAccountID = "cafe0001-0000-4000-8000-000000000002"
	AdminUserID    = "cafe0001-0000-4000-8000-000000000003"
)

// job is one async job. The command has already run when the job is created (its effect on the
// world is immediate and deterministic); pending only delays when queryAsyncJobResult says so.
type job struct {
	id      string
	cmd     string
	created time.Time
	pending int // queries still to answer "pending"
	result  any
	err     *apiError
}

// jobClasses names the Java command class CloudStack reports in a job's cmd field.
var jobClasses = map[string]string{
	"generateAlert": "org.apache.cloudstack.api.command.admin.alert.GenerateAlertCmd",
}

// SetJobPolls keeps every job created from now on pending for n queryAsyncJobResult calls before
// it reports its outcome. The default, 0, has jobs done at the first query, so cloudstack-go's
// poll loop (which sleeps 1 s, 2 s, ... between queries) returns without sleeping; each n costs a
// test n seconds or more.
func (s *Server) SetJobPolls(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.jobPolls = max(n, 0)
}

// startJob records the outcome of an async command and returns its job id; the caller holds s.mu.
func (s *Server) startJob(r *request, result any, err *apiError) string {
	j := &job{
		id: s.world.newUUID(), cmd: r.command, created: r.now, pending: s.jobPolls,
		result: result, err: err,
	}
	s.jobs[j.id] = j
	return j.id
}

// jobJSON is CloudStack's AsyncJobResponse.
type jobJSON struct {
	AccountID     string `json:"accountid"`
	UserID        string `json:"userid"`
	Cmd           string `json:"cmd"`
	JobStatus     int    `json:"jobstatus"`
	JobProcStatus int    `json:"jobprocstatus"`
	JobResultCode int    `json:"jobresultcode"`
	JobResultType string `json:"jobresulttype,omitempty"`
	JobResult     any    `json:"jobresult,omitempty"`
	Created       string `json:"created"`
	Completed     string `json:"completed,omitempty"`
	JobID         string `json:"jobid"`
}

// queryAsyncJobResult answers jobstatus 0 while the job is pending, then 1 with the command's
// result, or 2 with jobresultcode 530 and the error (code and text) as an object, as CloudStack
// reports an exception thrown by an async command.
func (s *Server) queryAsyncJobResult(r *request) (any, *apiError) {
	id := r.params.Get("jobid")
	if id == "" {
		return nil, paramError("Unable to execute API command queryasyncjobresult due to missing parameter jobid")
	}
	j, ok := s.jobs[id]
	if !ok {
		return nil, paramError("Unable to execute API command queryasyncjobresult due to invalid value. Invalid parameter jobid value=%s due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class.", id)
	}
	class := jobClasses[j.cmd]
	if class == "" {
		class = j.cmd
	}
	out := jobJSON{
		AccountID: AdminAccountID, UserID: AdminUserID, Cmd: class,
		Created: formatDate(j.created), JobID: j.id,
	}
	if j.pending > 0 {
		j.pending--
		return out, nil
	}
	out.Completed = formatDate(r.now)
	out.JobResultType = "object"
	if j.err != nil {
		out.JobStatus, out.JobResultCode = 2, ErrInternalError
		out.JobResult = map[string]any{"errorcode": j.err.code, "errortext": j.err.text}
		return out, nil
	}
	out.JobStatus, out.JobResult = 1, j.result
	return out, nil
}
