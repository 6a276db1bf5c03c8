{{/*
The startup, liveness and readiness probes of one service's container: gRPC health checks on the
plaintext health port (`healthPort` of "smsgw.components"), or
/healthz and /readyz for the gateway and the dashboard (HTTPS in native TLS mode).
Usage: {{- include "smsgw.probes" (dict "context" $ "component" "gateway") | nindent 10 }}
*/}}
{{- define "smsgw.probes" -}}
{{- $c := fromYaml (include "smsgw.component.facts" .) -}}
{{- if eq $c.kind "grpc" -}}
# The 'liveness' health service answers SERVING while the process does; '' (readiness)
# answers NOT_SERVING until the migrations ran and while a dependency is down. The kubelet's
# gRPC probes cannot speak TLS: they ask the plaintext health port, not the mutual TLS one.
startupProbe:
  grpc: { port: {{ $c.healthPort }}, service: liveness }
  periodSeconds: 2
  failureThreshold: 60
livenessProbe:
  grpc: { port: {{ $c.healthPort }}, service: liveness }
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
readinessProbe:
  grpc: { port: {{ $c.healthPort }} }
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 2
{{- else if eq $c.kind "smpp" -}}
# Plain HTTP on the health port: /healthz while the process answers, /readyz while Postgres, Redis
# and NATS do.
startupProbe:
  httpGet: { path: /healthz, port: health, scheme: HTTP }
  periodSeconds: 2
  failureThreshold: 60
livenessProbe:
  httpGet: { path: /healthz, port: health, scheme: HTTP }
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
readinessProbe:
  httpGet: { path: /readyz, port: health, scheme: HTTP }
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 2
{{- else -}}
{{- $scheme := ternary "HTTPS" "HTTP" (eq .context.Values.tls.mode "native") -}}
startupProbe:
  httpGet: { path: /healthz, port: http, scheme: {{ $scheme }} }
  periodSeconds: 2
  failureThreshold: 60
livenessProbe:
  httpGet: { path: /healthz, port: http, scheme: {{ $scheme }} }
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
readinessProbe:
  httpGet: { path: /readyz, port: http, scheme: {{ $scheme }} }
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: 2
{{- end -}}
{{- end -}}
