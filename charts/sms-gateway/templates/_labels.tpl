{{/*
Labels of every object of the release, with `commonLabels`.
Usage: {{ include "smsgw.labels.standard" $ }}
*/}}
{{- define "smsgw.labels.standard" -}}
helm.sh/chart: {{ include "smsgw.chart" . }}
app.kubernetes.io/name: {{ include "smsgw.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: sms-gateway
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/*
Labels of one service's objects: the standard labels and the service as
`app.kubernetes.io/component`.
Usage: {{ include "smsgw.labels.component" (dict "context" $ "component" "gateway") }}
*/}}
{{- define "smsgw.labels.component" -}}
{{ include "smsgw.labels.standard" .context }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/*
The labels that select one service's pods. They never change after an install: a Deployment's
selector is immutable.
Usage: {{ include "smsgw.labels.matchLabels" (dict "context" $ "component" "device-hub") }}
*/}}
{{- define "smsgw.labels.matchLabels" -}}
app.kubernetes.io/name: {{ include "smsgw.name" .context }}
app.kubernetes.io/instance: {{ .context.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}
