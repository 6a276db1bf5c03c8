{{/*
One service's ServiceMonitor (Prometheus Operator): its metrics port, every
`metrics.serviceMonitor.interval`.
Usage: {{ include "smsgw.serviceMonitor" (dict "context" $ "component" "dashboard") }}
*/}}
{{- define "smsgw.serviceMonitor" -}}
{{- $root := .context -}}
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ include "smsgw.component.fullname" . }}
  labels:
    {{- include "smsgw.labels.component" . | nindent 4 }}
    {{- with $root.Values.metrics.serviceMonitor.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  selector:
    matchLabels:
      {{- include "smsgw.labels.matchLabels" . | nindent 6 }}
  endpoints:
    - port: metrics
      path: /metrics
      interval: {{ $root.Values.metrics.serviceMonitor.interval }}
{{- end -}}
