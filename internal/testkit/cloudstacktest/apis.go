package cloudstacktest

import (
	"maps"
	"slices"
)

// listApis is registered here: it reads the command table, which cannot name it in its own
// initializer.
func init() { commands["listApis"] = command{run: (*Server).listApis} }

// apiParamJSON and apiJSON are the part of ApiDiscoveryResponse the fake fills.
type apiParamJSON struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Required bool   `json:"required"`
	Since    string `json:"since,omitempty"`
}

type apiJSON struct {
	Name    string         `json:"name"`
	IsAsync bool           `json:"isasync"`
	Params  []apiParamJSON `json:"params"`
}

// listApis describes the commands the fake implements, filtered by name. Only addAnnotation's
// parameters are given, as AddAnnotationCmd declares them in the world's release: adminsonly
// arrives in 4.16.0.0, with annotations on Kubernetes clusters.
func (s *Server) listApis(r *request) (any, *apiError) {
	name := r.params.Get("name")
	var out []apiJSON
	for _, cmd := range slices.Sorted(maps.Keys(commands)) {
		c := commands[cmd]
		if (name != "" && cmd != name) || (c.since > 0 && !s.world.since(c.since)) {
			continue
		}
		a := apiJSON{Name: cmd, IsAsync: c.async, Params: []apiParamJSON{}}
		if cmd == "addAnnotation" {
			a.Params = []apiParamJSON{{Name: "annotation", Type: "string"}, {Name: "entitytype", Type: "string"},
				{Name: "entityid", Type: "string"}}
			if s.world.since(16) {
				a.Params = append(a.Params, apiParamJSON{Name: "adminsonly", Type: "boolean", Since: "4.16.0"})
			}
		}
		out = append(out, a)
	}
	if name != "" && len(out) == 0 {
		return nil, paramError("The API [%s] does not exist or is not available for this account.", name)
	}
	return listAnswer(r, window{limit: -1}, "api", out), nil
}
