{{/*
One service's Service: its gRPC or HTTP port, the phones' port of the device-hub, and the metrics
port. gRPC services' Services are headless (with `grpc.clientSideBalancing`), so that clients
resolve and balance over every replica.
Usage: {{ include "smsgw.service" (dict "context" $ "component" "message") }}
*/}}
{{- define "smsgw.service" -}}
{{- $root := .context -}}
{{- $c := fromYaml (include "smsgw.component.facts" .) -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "smsgw.component.fullname" . }}
  labels:
    {{- include "smsgw.labels.component" . | nindent 4 }}
  {{- if and (eq $c.kind "smpp") $c.values.service.annotations }}
  annotations:
    {{- toYaml $c.values.service.annotations | nindent 4 }}
  {{- end }}
spec:
  {{- if and (eq $c.kind "grpc") $root.Values.grpc.clientSideBalancing }}
  # Headless: gRPC clients resolve every replica and balance calls over them.
  clusterIP: None
  {{- else if eq $c.kind "smpp" }}
  type: {{ $c.values.service.type }}
  {{- else }}
  type: ClusterIP
  {{- end }}
  selector:
    {{- include "smsgw.labels.matchLabels" . | nindent 4 }}
  ports:
    - name: {{ $c.kind }}
      port: {{ $c.port }}
      targetPort: {{ $c.kind }}
      {{- if eq $c.kind "grpc" }}
      appProtocol: grpc
      {{- end }}
    {{- if and (eq $c.kind "smpp") $c.values.plain.enabled }}
    - name: smpp-plain
      port: 2775
      targetPort: smpp-plain
    {{- end }}
    {{- if and $c.public (eq $c.kind "grpc") }}
    - name: agent
      port: {{ $c.public }}
      targetPort: agent
    {{- end }}
    {{- if $root.Values.metrics.enabled }}
    - name: metrics
      port: {{ $root.Values.metrics.port }}
      targetPort: metrics
    {{- end }}
{{- end -}}
