package config

import "testing"

func TestDerivedUIURL(t *testing.T) {
	for endpoint, want := range map[string]string{
		"https://cloud.example.com/client/api":          "https://cloud.example.com/client/",
		"http://10.0.0.1:8080/client/api/":              "http://10.0.0.1:8080/client/",
		"https://cloud.example.com/client/api?x=1#frag": "https://cloud.example.com/client/",
		"https://proxy.example.com/cloud/client/api":    "https://proxy.example.com/cloud/client/",
		"https://cloud.example.com/":                    "https://cloud.example.com/",
		"https://user:pw@cloud.example.com/client/api":  "https://cloud.example.com/client/",
		"not a url": "",
	} {
		if got := DerivedUIURL(endpoint); got != want {
			t.Errorf("DerivedUIURL(%q) = %q, want %q", endpoint, got, want)
		}
	}
}

func TestUI(t *testing.T) {
	cs := CloudStack{Endpoint: "https://cloud.example.com/client/api"}
	if got := cs.UI(); got != "https://cloud.example.com/client/" {
		t.Errorf("UI() of the endpoint alone = %q", got)
	}
	cs.UIURL = "https://portal.example.com/"
	if got := cs.UI(); got != "https://portal.example.com/" {
		t.Errorf("UI() with ui_url = %q, want ui_url", got)
	}
}
