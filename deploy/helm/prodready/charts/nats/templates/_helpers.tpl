{{/* The cluster's objects' name. */}}
{{- define "nats.fullname" -}}
{{- printf "%s-nats" .Release.Name | trunc 52 | trimSuffix "-" -}}
{{- end -}}

{{/* The labels the StatefulSet selects its pods by. */}}
{{- define "nats.selectorLabels" -}}
app.kubernetes.io/name: nats
app.kubernetes.io/instance: {{ .Release.Name }}-nats
{{- end -}}

{{/* Every object's labels. */}}
{{- define "nats.labels" -}}
{{ include "nats.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: queue
app.kubernetes.io/part-of: prodready
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}
