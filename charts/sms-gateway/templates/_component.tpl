{{/*
Everything one service runs as: its ServiceAccount, Service, Deployment, HorizontalPodAutoscaler,
PodDisruptionBudget, NetworkPolicy and ServiceMonitor, each when its values ask for it. Each
service's own file calls it after defining "smsgw.env.<service>" (the settings only that service
reads).
Usage: {{ include "smsgw.component" (dict "context" $ "component" "gateway") }}
*/}}
{{- define "smsgw.component" -}}
{{- $root := .context -}}
{{- $v := (fromYaml (include "smsgw.component.facts" .)).values -}}
{{- if $v.serviceAccount.create }}
---
{{ include "smsgw.serviceAccount" . }}
{{- end }}
---
{{ include "smsgw.service" . }}
---
{{ include "smsgw.deployment" . }}
{{- if $v.autoscaling.enabled }}
---
{{ include "smsgw.hpa" . }}
{{- end }}
{{- if $v.pdb.create }}
---
{{ include "smsgw.pdb" . }}
{{- end }}
{{- if $root.Values.networkPolicy.enabled }}
---
{{ include "smsgw.networkPolicy" . }}
{{- end }}
{{- if and $root.Values.metrics.enabled $root.Values.metrics.serviceMonitor.enabled }}
---
{{ include "smsgw.serviceMonitor" . }}
{{- end }}
{{- end -}}
