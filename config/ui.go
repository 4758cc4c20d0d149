package config

import (
	"net/url"
	"strings"
)

// DerivedUIURL is the address of CloudStack's web UI on the management server that serves the
// API at endpoint: the API is served at <context>/api and the UI at <context>/, where the context
// path is /client (client/conf/server.properties.in, context.path, 4.16.0.0 onwards). An
// endpoint that does not end in /api gives its own path.
func DerivedUIURL(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return ""
	}
	p := strings.TrimRight(u.Path, "/")
	p = strings.TrimSuffix(p, "/api")
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: p + "/"}).String()
}

// UI returns the address of CloudStack's web UI: ui_url, or the one beside the endpoint.
func (cs CloudStack) UI() string {
	if cs.UIURL != "" {
		return cs.UIURL
	}
	return DerivedUIURL(cs.Endpoint)
}
