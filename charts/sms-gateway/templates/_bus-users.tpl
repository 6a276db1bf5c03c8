{{/*
Each service's own NATS and Redis user (packages/platform/src/bus-permissions.ts says what each
may do; `npm run bus-users` writes it into the bundled charts' `auth.serviceUsers`). A service's
user is `smsgw-<service>`, its password the key `nats-<service>` or `redis-<service>` of the users'
Secret: with the bundled NATS and Redis, `<release>-bus-users` (generated once by the secrets Job,
templates/secrets-job.yaml) unless `nats.auth.usersSecret` / `redis.auth.usersSecret` name one;
with an external server, `externalNats.serviceUsers.existingSecret` /
`externalRedis.serviceUsers.existingSecret`.
*/}}

{{/*
The Secret of the services' NATS passwords, or nothing when they have none of their own (an
external NATS with one shared user, or the bundled one without authentication).
Usage: {{ with include "smsgw.busUsers.natsSecret" $ }}...{{ end }}
*/}}
{{- define "smsgw.busUsers.natsSecret" -}}
{{- if .Values.nats.enabled -}}
{{- $auth := default dict .Values.nats.auth -}}
{{- if ne (toString $auth.enabled) "false" -}}
{{- default (printf "%s-bus-users" .Release.Name) $auth.usersSecret -}}
{{- end -}}
{{- else -}}
{{- (default dict .Values.externalNats.serviceUsers).existingSecret -}}
{{- end -}}
{{- end -}}

{{/*
The Secret of the services' Redis passwords, or nothing (as "smsgw.busUsers.natsSecret").
Usage: {{ with include "smsgw.busUsers.redisSecret" $ }}...{{ end }}
*/}}
{{- define "smsgw.busUsers.redisSecret" -}}
{{- if .Values.redis.enabled -}}
{{- $auth := default dict .Values.redis.auth -}}
{{- if ne (toString $auth.enabled) "false" -}}
{{- default (printf "%s-bus-users" .Release.Name) $auth.usersSecret -}}
{{- end -}}
{{- else -}}
{{- (default dict .Values.externalRedis.serviceUsers).existingSecret -}}
{{- end -}}
{{- end -}}

{{/*
The keys the secrets Job generates into `<release>-bus-users` (comma-separated), or nothing when
the bundled servers' passwords come from Secrets of the operator's.
Usage: {{ with include "smsgw.busUsers.generatedKeys" $ }}...{{ end }}
*/}}
{{- define "smsgw.busUsers.generatedKeys" -}}
{{- $keys := list -}}
{{- $generated := printf "%s-bus-users" .Release.Name -}}
{{- range $name, $c := fromYaml (include "smsgw.components" $) -}}
{{- if and (has "nats" $c.uses) $.Values.nats.enabled (eq (include "smsgw.busUsers.natsSecret" $) $generated) -}}
{{- $keys = append $keys (printf "nats-%s" $name) -}}
{{- end -}}
{{- if and (has "redis" $c.uses) $.Values.redis.enabled (eq (include "smsgw.busUsers.redisSecret" $) $generated) -}}
{{- $keys = append $keys (printf "redis-%s" $name) -}}
{{- end -}}
{{- end -}}
{{- join "," (sortAlpha $keys) -}}
{{- end -}}

{{/*
NATS_USER and NATS_PASSWORD of one service: its own user, or the shared `externalNats.user`.
Usage: {{ include "smsgw.busUsers.natsEnv" (dict "context" $ "component" "message") }}
*/}}
{{- define "smsgw.busUsers.natsEnv" -}}
{{- $root := .context -}}
{{- with include "smsgw.busUsers.natsSecret" $root }}
- name: NATS_USER
  value: {{ printf "%s%s" (ternary "smsgw-" (default "smsgw-" (default dict $root.Values.externalNats.serviceUsers).userPrefix) $root.Values.nats.enabled) $.component | quote }}
- name: NATS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ printf "nats-%s" $.component }}
{{- else }}
{{- with include "smsgw.nats.user" $root }}
- name: NATS_USER
  value: {{ . | quote }}
- name: NATS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "smsgw.nats.secretName" $root }}
      key: {{ include "smsgw.nats.secretPasswordKey" $root }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
REDIS_USERNAME and REDIS_PASSWORD of one service: its own ACL user, or the shared
`externalRedis.username` and password.
Usage: {{ include "smsgw.busUsers.redisEnv" (dict "context" $ "component" "gateway") }}
*/}}
{{- define "smsgw.busUsers.redisEnv" -}}
{{- $root := .context -}}
{{- with include "smsgw.busUsers.redisSecret" $root }}
- name: REDIS_USERNAME
  value: {{ printf "%s%s" (ternary "smsgw-" (default "smsgw-" (default dict $root.Values.externalRedis.serviceUsers).userPrefix) $root.Values.redis.enabled) $.component | quote }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ printf "redis-%s" $.component }}
{{- else }}
{{- if include "smsgw.redis.authEnabled" $root }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "smsgw.redis.secretName" $root }}
      key: {{ include "smsgw.redis.secretPasswordKey" $root }}
{{- end }}
{{- if and (not $root.Values.redis.enabled) $root.Values.externalRedis.username }}
- name: REDIS_USERNAME
  value: {{ $root.Values.externalRedis.username | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
The bundled Redis prefixes the users' key patterns with its `auth.keyPrefix`: it must be the
release's `redisKeyPrefix`, or every service is refused its keys.
Usage: {{ include "smsgw.validateValues.busUsers" $ }}
*/}}
{{- define "smsgw.validateValues.busUsers" -}}
{{- if and .Values.redis.enabled (ne (toString (default dict .Values.redis.auth).enabled) "false") }}
{{- $prefix := (default dict .Values.redis.auth).keyPrefix | default "smsgw:" }}
{{- if ne $prefix .Values.redisKeyPrefix }}
redis.auth.keyPrefix ({{ $prefix }}) differs from redisKeyPrefix ({{ .Values.redisKeyPrefix }}): set both to the same prefix, or the services' Redis users are refused their keys
{{- end }}
{{- end }}
{{- end -}}

{{/*
The secrets Job's container that keeps `<release>-bus-users`: one generated password per key (as
the OTP keys: made once, never rendered, never changed).
Usage: {{ include "smsgw.busUsers.secretsContainer" (dict "context" $ "keys" "nats-message,...") }}
*/}}
{{- define "smsgw.busUsers.secretsContainer" -}}
{{- $root := .context -}}
- name: bus-users-init
  image: {{ include "smsgw.images.image" $root }}
  imagePullPolicy: {{ $root.Values.image.pullPolicy }}
  args:
    - tools/admin/dist/cli.js
    - ensure-secret
    - --name
    - {{ printf "%s-bus-users" $root.Release.Name | quote }}
    - --keys
    - {{ .keys | quote }}
    - --labels
    - {{ printf "app.kubernetes.io/name=%s,app.kubernetes.io/instance=%s,app.kubernetes.io/part-of=sms-gateway" (include "smsgw.name" $root) $root.Release.Name | quote }}
  securityContext:
    {{- toYaml $root.Values.containerSecurityContext | nindent 4 }}
  resources:
    requests: { cpu: 10m, memory: 64Mi }
    limits: { memory: 128Mi }
{{- end -}}
