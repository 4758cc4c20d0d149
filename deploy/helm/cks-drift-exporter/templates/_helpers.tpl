{{/* The chart's name, or nameOverride. */}}
{{- define "cks.name" -}}
{{- .Values.nameOverride | default .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}

{{/*
The name of every object: fullnameOverride, else the release and the name unless the release
contains it. 50 characters, so that the StatefulSet's pod and claim names stay within 63.
*/}}
{{- define "cks.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "cks.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "cks.selectorLabels" -}}
app.kubernetes.io/name: {{ include "cks.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "cks.labels" -}}
{{ include "cks.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* registry/repository:tag, or @digest when one is given. */}}
{{- define "cks.image" -}}
{{- $img := .Values.image -}}
{{- $repo := $img.repository -}}
{{- if $img.registry -}}{{- $repo = printf "%s/%s" $img.registry $img.repository -}}{{- end -}}
{{- if $img.digest -}}
{{- printf "%s@%s" $repo $img.digest -}}
{{- else -}}
{{- printf "%s:%s" $repo ($img.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{- define "cks.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- .Values.serviceAccount.name | default (include "cks.fullname" .) -}}
{{- else -}}
{{- .Values.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{- define "cks.secretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secrets" (include "cks.fullname" .)) -}}
{{- end -}}

{{/*
The configuration: the values' config with what the chart owns put in place. Only one notifier
per cloud: in direct mode several replicas must be shards, or each would announce every finding.
*/}}
{{- define "cks.config" -}}
{{- $cfg := deepCopy .Values.config -}}
{{- $replicas := int .Values.replicas -}}
{{- if lt $replicas 1 -}}{{- fail "replicas must be at least 1" -}}{{- end -}}
{{- $notifier := $cfg.notifier | default dict -}}
{{- if and (gt $replicas 1) (not .Values.sharding) (ne ($notifier.enabled | toString) "false") (eq ($notifier.mode | default "direct") "direct") -}}
{{- fail (printf "replicas: %d with sharding: false and config.notifier.mode: direct would announce every finding %d times; set sharding: true (each replica a shard), notifier.mode: alertmanager, or replicas: 1" $replicas $replicas) -}}
{{- end -}}
{{- if not ($cfg.cloudstack | default dict).endpoint -}}{{- fail "config.cloudstack.endpoint is required" -}}{{- end -}}
{{- $dir := "/etc/cks-drift-exporter/secrets" -}}
{{- $cs := merge (dict "api_key_file" (printf "%s/api-key" $dir) "secret_key_file" (printf "%s/secret-key" $dir)) ($cfg.cloudstack | default dict) -}}
{{- $_ := unset $cs "api_key" -}}{{- $_ := unset $cs "secret_key" -}}
{{- $_ := set $cfg "cloudstack" $cs -}}
{{- if or .Values.secrets.existingSecret .Values.secrets.sshPrivateKey -}}
{{- $_ := set $cfg "ssh" (merge (dict "private_key_file" (printf "%s/ssh-private-key" $dir)) ($cfg.ssh | default dict)) -}}
{{- end -}}
{{- if .Values.secrets.dbDSN -}}
{{- $_ := set $cfg "database" (merge (dict "dsn_file" (printf "%s/db-dsn" $dir)) ($cfg.database | default dict)) -}}
{{- end -}}
{{- if eq ($notifier.mode | default "direct") "alertmanager" -}}
{{- $_ := set $cfg "notifier" (merge (dict "webhook_token_file" (printf "%s/webhook-token" $dir)) $notifier) -}}
{{- $_ := unset $cfg.notifier "webhook_token" -}}
{{- end -}}
{{- $_ := set $cfg "storage" (dict "path" "/var/lib/cks-drift-exporter/state.db") -}}
{{- if .Values.sharding -}}
{{- $check := $cfg.check | default dict -}}
{{- $_ := set $check "total_shards" $replicas -}}
{{- $_ := unset $check "shard" -}}
{{- $_ := set $cfg "check" $check -}}
{{- end -}}
{{- toYaml $cfg -}}
{{- end -}}
