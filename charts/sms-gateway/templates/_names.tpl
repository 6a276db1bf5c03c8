{{/*
Names of the release's objects. Every object name is cut to 63 characters, Kubernetes' limit for
a label value and a DNS label.
*/}}

{{/*
The chart's name, or `nameOverride`.
Usage: {{ include "smsgw.name" $ }}
*/}}
{{- define "smsgw.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The prefix of every object name: `<release>-<chart>`, the release alone when it already holds
the chart's name, or `fullnameOverride`.
Usage: {{ include "smsgw.fullname" $ }}
*/}}
{{- define "smsgw.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
`<chart>-<version>`, the value of the `helm.sh/chart` label.
Usage: {{ include "smsgw.chart" $ }}
*/}}
{{- define "smsgw.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The name of one service's objects (Deployment, Service, HPA, PDB, NetworkPolicy, ServiceMonitor):
`<fullname>-<service>`.
Usage: {{ include "smsgw.component.fullname" (dict "context" $ "component" "device-hub") }}
*/}}
{{- define "smsgw.component.fullname" -}}
{{- printf "%s-%s" (include "smsgw.fullname" .context) .component | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The ServiceAccount one service's pods run as: its own (`<fullname>-<service>` unless named), or
the namespace's `default` when the chart creates none.
Usage: {{ include "smsgw.component.serviceAccountName" (dict "context" $ "component" "otp") }}
*/}}
{{- define "smsgw.component.serviceAccountName" -}}
{{- $v := (fromYaml (include "smsgw.component.facts" .)).values -}}
{{- if $v.serviceAccount.create -}}
{{- default (include "smsgw.component.fullname" .) $v.serviceAccount.name -}}
{{- else -}}
{{- default "default" $v.serviceAccount.name -}}
{{- end -}}
{{- end -}}
