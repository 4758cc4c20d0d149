{{/*
The exporter's web configuration (--web.config.file). The chart writes it from webConfig, or
takes a Secret of one's own; scheme, TLS and basic auth of the ServiceMonitor follow it.
*/}}

{{/* "true" when the exporter gets a web configuration. */}}
{{- define "cks.web.enabled" -}}
{{- $w := .Values.webConfig -}}
{{- if or $w.existingSecret $w.tls.enabled $w.basicAuth.enabled $w.extraConfig -}}true{{- end -}}
{{- end -}}

{{- define "cks.web.secretName" -}}
{{- .Values.webConfig.existingSecret | default (printf "%s-web-config" (include "cks.fullname" .)) -}}
{{- end -}}

{{/* Where the chart mounts the web configuration and the TLS Secret. */}}
{{- define "cks.web.dir" -}}/etc/cks-drift-exporter/web{{- end -}}
{{- define "cks.web.tlsDir" -}}/etc/cks-drift-exporter/tls{{- end -}}

{{/* The file web-config.yml the chart writes. */}}
{{- define "cks.web.config" -}}
{{- $w := .Values.webConfig -}}
{{- $cfg := dict -}}
{{- if $w.tls.enabled -}}
{{- if not $w.tls.secretName -}}
{{- fail "webConfig.tls.secretName is required with webConfig.tls.enabled: a kubernetes.io/tls Secret with tls.crt and tls.key" -}}
{{- end -}}
{{- $dir := include "cks.web.tlsDir" . -}}
{{- $_ := set $cfg "tls_server_config" (dict "cert_file" (printf "%s/tls.crt" $dir) "key_file" (printf "%s/tls.key" $dir) "min_version" $w.tls.minVersion) -}}
{{- end -}}
{{- if $w.basicAuth.enabled -}}
{{- if not $w.basicAuth.users -}}
{{- fail "webConfig.basicAuth.users is required with webConfig.basicAuth.enabled: user name: bcrypt hash of the password" -}}
{{- end -}}
{{- $_ := set $cfg "basic_auth_users" $w.basicAuth.users -}}
{{- end -}}
{{- toYaml (mergeOverwrite $cfg (deepCopy $w.extraConfig)) -}}
{{- end -}}

{{/* http or https: serviceMonitor.scheme, else https with the chart's TLS. */}}
{{- define "cks.web.scheme" -}}
{{- .Values.serviceMonitor.scheme | default (ternary "https" "http" .Values.webConfig.tls.enabled) -}}
{{- end -}}

{{/*
"true" when the kubelet's HTTP probes can pass: they send no password and no client
certificate, so with basic auth, a client certificate required, or a Secret whose content the
chart cannot see, the probes only open the port (tcpSocket).
*/}}
{{- define "cks.web.httpProbes" -}}
{{- $w := .Values.webConfig -}}
{{- $extra := $w.extraConfig | default dict -}}
{{- $clientAuth := (get ($extra.tls_server_config | default dict) "client_auth_type") | default "" | toString -}}
{{- if not (or $w.existingSecret $w.basicAuth.enabled $extra.basic_auth_users (hasPrefix "Require" $clientAuth)) -}}true{{- end -}}
{{- end -}}
