{{/*
The environment every service reads the same way: logs and telemetry, where it listens, the
dependencies it uses, the services it calls. Each service's own settings come after, from
"smsgw.env.<service>" (defined in the service's file), then its `extraEnv`.
Usage: {{ include "smsgw.env.common" (dict "context" $ "component" "gateway") }}
*/}}
{{- define "smsgw.env.common" -}}
{{- $c := fromYaml (include "smsgw.component.facts" .) -}}
{{ include "smsgw.env.observability" .context }}
{{ include "smsgw.env.listen" . }}
{{- if has "postgres" $c.uses }}
{{ include "smsgw.env.database" .context }}
{{- end }}
{{- if has "redis" $c.uses }}
{{ include "smsgw.env.redis" . }}
{{- end }}
{{- if has "nats" $c.uses }}
{{ include "smsgw.env.nats" . }}
{{- end }}
{{- with include "smsgw.env.grpcClients" . }}
{{ . }}
{{- end }}
{{- end -}}

{{/*
Logs, traces and metrics. The resource attributes name the pod, so that its spans and metrics can
be told apart from its siblings'.
Usage: {{ include "smsgw.env.observability" $ }}
*/}}
{{- define "smsgw.env.observability" -}}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
- name: SMSGW_VERSION
  value: {{ .Chart.AppVersion | quote }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: "service.instance.id=$(POD_NAME),k8s.pod.name=$(POD_NAME),k8s.namespace.name={{ .Release.Namespace }},deployment.environment={{ .Release.Name }}"
{{- if .Values.telemetry.otlp.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ .Values.telemetry.otlp.endpoint | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ .Values.telemetry.otlp.protocol | quote }}
- name: OTEL_TRACES_SAMPLER
  value: parentbased_traceidratio
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ .Values.telemetry.samplerRatio | quote }}
{{- end }}
{{- if .Values.metrics.enabled }}
- name: METRICS_PORT
  value: {{ .Values.metrics.port | quote }}
{{- end }}
{{- end -}}

{{/*
The port one service listens on (gRPC or HTTP), and TLS on the public ones.
Usage: {{ include "smsgw.env.listen" (dict "context" $ "component" "device-hub") }}
*/}}
{{- define "smsgw.env.listen" -}}
{{- $root := .context -}}
{{- $c := fromYaml (include "smsgw.component.facts" .) -}}
{{- if eq $c.kind "grpc" -}}
- name: GRPC_PORT
  value: {{ $c.port | quote }}
{{- else if eq $c.kind "smpp" -}}
- name: SMPP_TLS_PORT
  value: {{ $c.port | quote }}
- name: SMPP_HEALTH_PORT
  value: {{ $c.healthPort | quote }}
- name: TLS_CERT_FILE
  value: /etc/smsgw/tls/tls.crt
- name: TLS_KEY_FILE
  value: /etc/smsgw/tls/tls.key
{{- else -}}
- name: HTTP_PORT
  value: {{ $c.port | quote }}
{{- end }}
{{- if and $c.public (ne $c.kind "smpp") }}
- name: TLS_MODE
  value: {{ $root.Values.tls.mode | quote }}
{{- with $root.Values.tls.trustedProxies }}
- name: TRUSTED_PROXIES
  value: {{ join "," . | quote }}
{{- end }}
{{- if eq $root.Values.tls.mode "native" }}
- name: TLS_CERT_FILE
  value: /etc/smsgw/tls/tls.crt
- name: TLS_KEY_FILE
  value: /etc/smsgw/tls/tls.key
{{- end }}
{{- end }}
{{- end -}}

{{/*
Postgres: the URL, and the password from its Secret.
Usage: {{ include "smsgw.env.database" $ }}
*/}}
{{- define "smsgw.env.database" -}}
- name: DATABASE_URL
  value: {{ include "smsgw.database.url" . | quote }}
- name: DATABASE_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "smsgw.database.secretName" . }}
      key: {{ include "smsgw.database.secretPasswordKey" . }}
- name: DATABASE_POOL_MAX
  value: {{ .Values.database.poolMax | quote }}
{{- end -}}

{{/*
Redis: the URL, the release's key prefix, and the service's credentials (templates/_bus-users.tpl).
Usage: {{ include "smsgw.env.redis" (dict "context" $ "component" "gateway") }}
*/}}
{{- define "smsgw.env.redis" -}}
- name: REDIS_URL
  value: {{ include "smsgw.redis.url" .context | quote }}
- name: REDIS_PREFIX
  value: {{ .context.Values.redisKeyPrefix | quote }}
{{- include "smsgw.busUsers.redisEnv" . }}
{{- end -}}

{{/*
NATS: the URL, the replicas of the platform's streams, and the service's credentials
(templates/_bus-users.tpl).
Usage: {{ include "smsgw.env.nats" (dict "context" $ "component" "message") }}
*/}}
{{- define "smsgw.env.nats" -}}
- name: NATS_URL
  value: {{ include "smsgw.nats.url" .context | quote }}
- name: NATS_STREAM_REPLICAS
  value: {{ ternary 1 .context.Values.externalNats.streamReplicas .context.Values.nats.enabled | quote }}
- name: NATS_STREAM_MAX_BYTES
  value: {{ .context.Values.natsStreams.maxBytes | int64 | quote }}
{{- include "smsgw.busUsers.natsEnv" . }}
{{- end -}}

{{/*
`<SERVICE>_GRPC_ADDR` of each service one service calls, or nothing when it calls none.
Usage: {{ include "smsgw.env.grpcClients" (dict "context" $ "component" "gateway") }}
*/}}
{{- define "smsgw.env.grpcClients" -}}
{{- $root := .context -}}
{{- range $i, $callee := (fromYaml (include "smsgw.component.facts" .)).calls }}
{{- if $i }}{{ "\n" }}{{ end -}}
- name: {{ printf "%s_GRPC_ADDR" ($callee | upper | replace "-" "_") }}
  value: {{ include "smsgw.component.grpcAddress" (dict "context" $root "component" $callee) | quote }}
{{- end }}
{{- end -}}
