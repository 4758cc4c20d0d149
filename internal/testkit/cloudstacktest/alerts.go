package cloudstacktest

import (
	"regexp"
	"slices"
	"strconv"
	"time"
	"unicode/utf16"
)

// MaxAlertDescription is the length limit of generateAlert's description (@Parameter length).
const MaxAlertDescription = 999

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// checkGenerateAlert is generateAlert's parameter validation, which CloudStack runs before it
// creates the job: required parameters, type a short, description within 999 UTF-16 units (Java
// String.length), zoneid and podid uuids. Zones and pods are not modelled, so any well-formed
// uuid passes.
func (s *Server) checkGenerateAlert(r *request) *apiError {
	p := r.params
	for _, name := range []string{"type", "name", "description"} {
		if p.Get(name) == "" {
			return paramError("Unable to execute API command generatealert due to missing parameter %s", name)
		}
	}
	if _, err := strconv.ParseInt(p.Get("type"), 10, 16); err != nil {
		return paramError("Unable to execute API command generatealert due to invalid value. Invalid parameter type value=%s due to incorrect short value format", p.Get("type"))
	}
	if n := len(utf16.Encode([]rune(p.Get("description")))); n > MaxAlertDescription {
		return paramError("Value greater than max allowed length %d for param: description", MaxAlertDescription)
	}
	for _, name := range []string{"zoneid", "podid"} {
		if v := p.Get(name); v != "" && !uuidPattern.MatchString(v) {
			return paramError("Unable to execute API command generatealert due to invalid value. Invalid parameter %s value=%s due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class.", name, v)
		}
	}
	return nil
}

// generateAlert is GenerateAlertCmd.execute: the built-in type check (a failure of the job, not
// of the call), then AlertManagerImpl.sendAlert's latch: while an alert of the same type and
// zone (and pod, when one is given) is not archived, nothing is stored and the job still
// succeeds. A request without zoneid uses zone 0, which only matches other zoneless alerts.
func (s *Server) generateAlert(r *request) (any, *apiError) {
	p := r.params
	t, _ := strconv.Atoi(p.Get("type")) // checked by checkGenerateAlert
	if e := checkAlertType(t, p.Get("name")); e != nil {
		return nil, e
	}
	zone, pod := p.Get("zoneid"), p.Get("podid")
	for _, a := range s.world.Alerts {
		if a != nil && !a.Archived && a.Type == t && a.ZoneID == zone && (pod == "" || a.PodID == pod) {
			return map[string]any{"success": true}, nil
		}
	}
	s.world.Alerts = append(s.world.Alerts, &Alert{
		ID: s.world.newUUID(), Type: t, Name: p.Get("name"), Description: p.Get("description"),
		ZoneID: zone, PodID: pod, Sent: r.now,
	})
	return map[string]any{"success": true}, nil
}

// archiveAlerts follows ArchiveAlertsCmd and AlertDaoImpl.archiveAlert: ids, type or enddate is
// required; startdate needs enddate; an unknown id is a parameter error; if fewer not-yet-archived
// alerts match than ids were given, nothing is archived and the call fails with 530.
func (s *Server) archiveAlerts(r *request) (any, *apiError) {
	p := r.params
	ids, typ := listParam(p, "ids"), p.Get("type")
	if len(ids) == 0 && typ == "" && p.Get("enddate") == "" {
		return nil, paramError("either ids, type or enddate must be specified")
	}
	if p.Get("startdate") != "" && p.Get("enddate") == "" {
		return nil, paramError("enddate must be specified with startdate parameter")
	}
	start, e := dateParam(p.Get("startdate"), "startdate")
	if e != nil {
		return nil, e
	}
	end, e := dateParam(p.Get("enddate"), "enddate")
	if e != nil {
		return nil, e
	}
	for _, id := range ids {
		if !slices.ContainsFunc(s.world.Alerts, func(a *Alert) bool { return a != nil && a.ID == id }) {
			return nil, paramError("Unable to execute API command archivealerts due to invalid value. Invalid parameter ids value=%s due to incorrect long value format, or entity does not exist or due to incorrect parameter annotation for the field in api cmd class.", id)
		}
	}
	var matched []*Alert
	for _, a := range s.world.Alerts {
		switch {
		case a == nil || a.Archived:
		case len(ids) > 0 && !slices.Contains(ids, a.ID):
		case typ != "" && strconv.Itoa(a.Type) != typ:
		case !start.IsZero() && a.Sent.Before(start):
		case !end.IsZero() && a.Sent.After(end):
		default:
			matched = append(matched, a)
		}
	}
	if len(ids) > 0 && len(matched) < len(ids) {
		return nil, &apiError{code: ErrInternalError, text: "Failed to archive Alerts, one or more parameters has invalid values"}
	}
	for _, a := range matched {
		a.Archived = true
	}
	return map[string]any{"success": "true"}, nil
}

// dateParam parses a CommandType.DATE parameter ("yyyy-MM-dd" or "yyyy-MM-dd HH:mm:ss", UTC here).
func dateParam(v, name string) (time.Time, *apiError) {
	if v == "" {
		return time.Time{}, nil
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02", DateLayout} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, paramError("Unable to parse date %s for parameter %s, use yyyy-MM-dd or yyyy-MM-dd HH:mm:ss", v, name)
}

type alertJSON struct {
	ID          string `json:"id"`
	Type        int    `json:"type"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	Sent        string `json:"sent,omitempty"`
	ZoneID      string `json:"zoneid,omitempty"`
}

// listAlerts lists the alerts that are not archived, newest first (ORDER BY last_sent DESC).
// Filters: id, type, name (equal without case), keyword (substring of the description).
func (s *Server) listAlerts(r *request) (any, *apiError) {
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	var alerts []*Alert
	for _, a := range s.world.Alerts {
		switch {
		case a == nil || a.Archived:
		case p.Get("id") != "" && a.ID != p.Get("id"):
		case p.Get("type") != "" && strconv.Itoa(a.Type) != p.Get("type"):
		case !matchFold(p.Get("name"), a.Name):
		case !containsFold(p.Get("keyword"), a.Description):
		default:
			alerts = append(alerts, a)
		}
	}
	slices.Reverse(alerts) // among equal times, the later row first
	slices.SortStableFunc(alerts, func(a, b *Alert) int { return b.Sent.Compare(a.Sent) })
	out := make([]alertJSON, len(alerts))
	for i, a := range alerts {
		out[i] = alertJSON{ID: a.ID, Type: a.Type, Name: a.Name, Description: a.Description,
			Sent: formatDate(a.Sent), ZoneID: a.ZoneID}
	}
	return listAnswer(r, win, "alert", out), nil
}
