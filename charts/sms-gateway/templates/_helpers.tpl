{{/*
Names, labels and the facts about each service that every template shares.
*/}}

{{- define "smsgw.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

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

{{- define "smsgw.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels of every object of the release. */}}
{{- define "smsgw.labels" -}}
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

{{/* Selector labels of one service: (dict "root" $ "name" "device-hub"). */}}
{{- define "smsgw.selectorLabels" -}}
app.kubernetes.io/name: {{ include "smsgw.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "smsgw.componentLabels" -}}
{{ include "smsgw.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/*
The services: their values key, ports, what they use and whom they call, as in DESIGN.md's table
of parts. The env, the probes and the NetworkPolicies are all derived from this one table.
  kind: grpc (gRPC probes) or http (HTTP probes on /healthz and /readyz)
  public: the port an Ingress routes to
*/}}
{{- define "smsgw.components" -}}
account:
  key: account
  kind: grpc
  port: 50051
  uses: [postgres]
  calls: []
message:
  key: message
  kind: grpc
  port: 50052
  uses: [postgres, nats]
  calls: [scheduler]
device-hub:
  key: deviceHub
  kind: grpc
  port: 50053
  public: 8444
  uses: [postgres, redis, nats]
  calls: [message]
otp:
  key: otp
  kind: grpc
  port: 50054
  uses: [postgres, redis]
  calls: [message]
scheduler:
  key: scheduler
  kind: grpc
  port: 50055
  uses: [postgres, nats]
  calls: []
webhook:
  key: webhook
  kind: grpc
  port: 50056
  uses: [postgres, nats, smtp, internet]
  calls: [account, scheduler]
gateway:
  key: gateway
  kind: http
  port: 8443
  public: 8443
  uses: [redis]
  calls: [account, message, device-hub, otp]
dashboard:
  key: dashboard
  kind: http
  port: 8445
  public: 8445
  uses: [redis, nats]
  calls: [account, device-hub, message, webhook]
{{- end -}}

{{/* The table above for one service, with its name: (dict "root" $ "name" "otp"). */}}
{{- define "smsgw.component" -}}
{{- $c := get (fromYaml (include "smsgw.components" .root)) .name -}}
{{- if not $c -}}{{- fail (printf "unknown service %q" .name) -}}{{- end -}}
{{- toYaml (merge (dict "name" .name "values" (get .root.Values $c.key)) $c) -}}
{{- end -}}

{{- define "smsgw.componentFullname" -}}
{{- printf "%s-%s" (include "smsgw.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The address a client dials: dns:/// of the headless Service, so calls spread over every replica. */}}
{{- define "smsgw.grpcAddress" -}}
{{- $c := fromYaml (include "smsgw.component" .) -}}
{{- $host := printf "%s.%s.svc.%s" (include "smsgw.componentFullname" .) .root.Release.Namespace .root.Values.clusterDomain -}}
{{- if .root.Values.grpc.clientSideBalancing -}}
{{- printf "dns:///%s:%v" $host $c.port -}}
{{- else -}}
{{- printf "%s:%v" $host $c.port -}}
{{- end -}}
{{- end -}}

{{- define "smsgw.serviceAccountName" -}}
{{- $v := (fromYaml (include "smsgw.component" .)).values -}}
{{- if $v.serviceAccount.create -}}
{{- default (include "smsgw.componentFullname" .) $v.serviceAccount.name -}}
{{- else -}}
{{- default "default" $v.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "smsgw.image" -}}
{{- $registry := default .Values.image.registry .Values.global.imageRegistry -}}
{{- $repo := ternary (printf "%s/%s" $registry .Values.image.repository) .Values.image.repository (ne $registry "") -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $repo .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repo (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{- define "smsgw.imagePullSecrets" -}}
{{- $secrets := concat .Values.global.imagePullSecrets .Values.imagePullSecrets | uniq -}}
{{- if $secrets }}
imagePullSecrets:
{{- range $secrets }}
  - name: {{ . }}
{{- end }}
{{- end }}
{{- end -}}

{{/* ---- Dependencies: where they are and where their credentials are. ---- */}}

{{/*
The bundled Postgres's Service: `<release>-postgresql`, as the bundled chart names it.
Usage: {{ include "smsgw.postgresql.fullname" $ }}
*/}}
{{- define "smsgw.postgresql.fullname" -}}
{{- default (printf "%s-postgresql" .Release.Name) .Values.postgresql.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
host:port of the services' Postgres.
Usage: {{ include "smsgw.database.address" $ }}
*/}}
{{- define "smsgw.database.address" -}}
{{- if .Values.postgresql.enabled -}}
{{- printf "%s:5432" (include "smsgw.postgresql.fullname" .) -}}
{{- else -}}
{{- printf "%s:%v" .Values.externalDatabase.host .Values.externalDatabase.port -}}
{{- end -}}
{{- end -}}

{{/*
DATABASE_URL without its password (DATABASE_PASSWORD carries it, from a Secret).
Usage: {{ include "smsgw.database.url" $ }}
*/}}
{{- define "smsgw.database.url" -}}
{{- if .Values.postgresql.enabled -}}
{{- $auth := default dict .Values.postgresql.auth -}}
{{- printf "postgresql://%s@%s:5432/%s" (default "smsgw" $auth.username) (include "smsgw.postgresql.fullname" .) (default "smsgw" $auth.database) -}}
{{- else -}}
{{- $db := .Values.externalDatabase -}}
{{- printf "postgresql://%s@%s:%v/%s" (urlquery $db.user) $db.host $db.port $db.database -}}
{{- if $db.sslMode }}?sslmode={{ $db.sslMode }}{{ end -}}
{{- end -}}
{{- end -}}

{{/*
The Secret that holds the services' database password: the bundled chart's, its
`auth.existingSecret`, `externalDatabase.existingSecret`, or the one this chart creates from
`externalDatabase.password` (`<fullname>-external-db`).
Usage: {{ include "smsgw.database.secretName" $ }}
*/}}
{{- define "smsgw.database.secretName" -}}
{{- if .Values.postgresql.enabled -}}
{{- $auth := default dict .Values.postgresql.auth -}}
{{- default (include "smsgw.postgresql.fullname" .) $auth.existingSecret -}}
{{- else -}}
{{- default (printf "%s-external-db" (include "smsgw.fullname" .)) .Values.externalDatabase.existingSecret -}}
{{- end -}}
{{- end -}}

{{/*
The key of the services' database password in "smsgw.database.secretName".
Usage: {{ include "smsgw.database.secretPasswordKey" $ }}
*/}}
{{- define "smsgw.database.secretPasswordKey" -}}
{{- if .Values.postgresql.enabled -}}
{{- $keys := default dict (default dict .Values.postgresql.auth).secretKeys -}}
{{- default "password" $keys.userPasswordKey -}}
{{- else -}}
{{- .Values.externalDatabase.existingSecretPasswordKey -}}
{{- end -}}
{{- end -}}

{{/*
The bundled Redis's Service: `<release>-redis`, as the bundled chart names it.
Usage: {{ include "smsgw.redis.fullname" $ }}
*/}}
{{- define "smsgw.redis.fullname" -}}
{{- default (printf "%s-redis" .Release.Name) .Values.redis.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
host:port of the services' Redis.
Usage: {{ include "smsgw.redis.address" $ }}
*/}}
{{- define "smsgw.redis.address" -}}
{{- if .Values.redis.enabled -}}
{{- printf "%s:6379" (include "smsgw.redis.fullname" .) -}}
{{- else -}}
{{- printf "%s:%v" .Values.externalRedis.host .Values.externalRedis.port -}}
{{- end -}}
{{- end -}}

{{/*
REDIS_URL, without credentials.
Usage: {{ include "smsgw.redis.url" $ }}
*/}}
{{- define "smsgw.redis.url" -}}
{{- if .Values.redis.enabled -}}
{{- printf "redis://%s:6379" (include "smsgw.redis.fullname" .) -}}
{{- else -}}
{{- printf "%s://%s:%v" (ternary "rediss" "redis" .Values.externalRedis.tls) .Values.externalRedis.host .Values.externalRedis.port -}}
{{- end -}}
{{- end -}}

{{/*
"true" when the services' Redis asks for a password, else nothing: the bundled one unless its
`auth.enabled` is false, an external one when it has a password or an existing Secret.
Usage: {{ if include "smsgw.redis.authEnabled" $ }}...{{ end }}
*/}}
{{- define "smsgw.redis.authEnabled" -}}
{{- if .Values.redis.enabled -}}
{{- if ne (toString (default dict .Values.redis.auth).enabled) "false" -}}true{{- end -}}
{{- else if or .Values.externalRedis.password .Values.externalRedis.existingSecret -}}
true
{{- end -}}
{{- end -}}

{{/*
The Secret that holds the Redis password (when "smsgw.redis.authEnabled"): the bundled chart's,
its `auth.existingSecret`, `externalRedis.existingSecret`, or the one this chart creates from
`externalRedis.password` (`<fullname>-external-redis`).
Usage: {{ include "smsgw.redis.secretName" $ }}
*/}}
{{- define "smsgw.redis.secretName" -}}
{{- if .Values.redis.enabled -}}
{{- default (include "smsgw.redis.fullname" .) (default dict .Values.redis.auth).existingSecret -}}
{{- else -}}
{{- default (printf "%s-external-redis" (include "smsgw.fullname" .)) .Values.externalRedis.existingSecret -}}
{{- end -}}
{{- end -}}

{{/*
The key of the Redis password in "smsgw.redis.secretName".
Usage: {{ include "smsgw.redis.secretPasswordKey" $ }}
*/}}
{{- define "smsgw.redis.secretPasswordKey" -}}
{{- if .Values.redis.enabled -}}
{{- default "redis-password" (default dict .Values.redis.auth).existingSecretPasswordKey -}}
{{- else -}}
{{- .Values.externalRedis.existingSecretPasswordKey -}}
{{- end -}}
{{- end -}}

{{/*
The bundled NATS's Service: `<release>-nats`, as the bundled chart names it.
Usage: {{ include "smsgw.nats.fullname" $ }}
*/}}
{{- define "smsgw.nats.fullname" -}}
{{- default (printf "%s-nats" .Release.Name) .Values.nats.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
host:port of the services' NATS.
Usage: {{ include "smsgw.nats.address" $ }}
*/}}
{{- define "smsgw.nats.address" -}}
{{- if .Values.nats.enabled -}}
{{- printf "%s:4222" (include "smsgw.nats.fullname" .) -}}
{{- else -}}
{{- printf "%s:%v" .Values.externalNats.host .Values.externalNats.port -}}
{{- end -}}
{{- end -}}

{{/*
NATS_URL, without credentials.
Usage: {{ include "smsgw.nats.url" $ }}
*/}}
{{- define "smsgw.nats.url" -}}
{{- printf "nats://%s" (include "smsgw.nats.address" .) -}}
{{- end -}}

{{/*
The user the services connect to NATS as, or nothing when NATS asks for no password: the bundled
one unless its `auth.enabled` is false, an external one when `externalNats.user` is set.
Usage: {{ with include "smsgw.nats.user" $ }}...{{ end }}
*/}}
{{- define "smsgw.nats.user" -}}
{{- if .Values.nats.enabled -}}
{{- $auth := default dict .Values.nats.auth -}}
{{- if ne (toString $auth.enabled) "false" -}}
{{- default "smsgw" $auth.user -}}
{{- end -}}
{{- else -}}
{{- .Values.externalNats.user -}}
{{- end -}}
{{- end -}}

{{/*
The Secret that holds the NATS password (when "smsgw.nats.user" is set): the bundled chart's,
its `auth.existingSecret`, `externalNats.existingSecret`, or the one this chart creates from
`externalNats.password` (`<fullname>-external-nats`).
Usage: {{ include "smsgw.nats.secretName" $ }}
*/}}
{{- define "smsgw.nats.secretName" -}}
{{- if .Values.nats.enabled -}}
{{- default (include "smsgw.nats.fullname" .) (default dict .Values.nats.auth).existingSecret -}}
{{- else -}}
{{- default (printf "%s-external-nats" (include "smsgw.fullname" .)) .Values.externalNats.existingSecret -}}
{{- end -}}
{{- end -}}

{{/*
The key of the NATS password in "smsgw.nats.secretName".
Usage: {{ include "smsgw.nats.secretPasswordKey" $ }}
*/}}
{{- define "smsgw.nats.secretPasswordKey" -}}
{{- if .Values.nats.enabled -}}
{{- default "nats-password" (default dict .Values.nats.auth).existingSecretPasswordKey -}}
{{- else -}}
{{- .Values.externalNats.existingSecretPasswordKey -}}
{{- end -}}
{{- end -}}

{{- define "smsgw.secretsName" -}}
{{- default (printf "%s-secrets" (include "smsgw.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{/* The public URL phones reach the hub at. */}}
{{- define "smsgw.hubPublicUrl" -}}
{{- if .Values.deviceHub.publicUrl -}}
{{- .Values.deviceHub.publicUrl -}}
{{- else if .Values.ingress.enabled -}}
{{- printf "https://%s" .Values.ingress.agent.host -}}
{{- end -}}
{{- end -}}

{{/* A value kept across upgrades: the existing Secret's, else the given one, else a random one. */}}
{{- define "smsgw.keptSecretValue" -}}
{{- $existing := lookup "v1" "Secret" .root.Release.Namespace .secret -}}
{{- if .value -}}
{{- .value | b64enc -}}
{{- else if and $existing (hasKey $existing.data .key) -}}
{{- index $existing.data .key -}}
{{- else -}}
{{- /* randBytes answers the base64 of the bytes; Secret data is base64 again. */ -}}
{{- randBytes 32 | b64enc -}}
{{- end -}}
{{- end -}}

{{/*
Refuses contradictory values with one message that names each problem (Bitnami's habit).
*/}}
{{- define "smsgw.validateValues" -}}
{{- $problems := list -}}
{{- if and .Values.postgresql.enabled .Values.externalDatabase.host -}}
{{- $problems = append $problems "postgresql.enabled and externalDatabase.host are both set: choose the bundled PostgreSQL or an external one" -}}
{{- else if and (not .Values.postgresql.enabled) (not .Values.externalDatabase.host) -}}
{{- $problems = append $problems "no database: set postgresql.enabled=true or externalDatabase.host" -}}
{{- end -}}
{{- if and (not .Values.postgresql.enabled) .Values.externalDatabase.host (not .Values.externalDatabase.password) (not .Values.externalDatabase.existingSecret) -}}
{{- $problems = append $problems "externalDatabase needs a password: set externalDatabase.existingSecret (or externalDatabase.password)" -}}
{{- end -}}
{{- if and .Values.redis.enabled .Values.externalRedis.host -}}
{{- $problems = append $problems "redis.enabled and externalRedis.host are both set: choose the bundled Redis or an external one" -}}
{{- else if and (not .Values.redis.enabled) (not .Values.externalRedis.host) -}}
{{- $problems = append $problems "no Redis: set redis.enabled=true or externalRedis.host" -}}
{{- end -}}
{{- if and .Values.nats.enabled .Values.externalNats.host -}}
{{- $problems = append $problems "nats.enabled and externalNats.host are both set: choose the bundled NATS or an external one" -}}
{{- else if and (not .Values.nats.enabled) (not .Values.externalNats.host) -}}
{{- $problems = append $problems "no NATS: set nats.enabled=true or externalNats.host" -}}
{{- end -}}
{{- if and (not .Values.nats.enabled) .Values.externalNats.user (not .Values.externalNats.password) (not .Values.externalNats.existingSecret) -}}
{{- $problems = append $problems "externalNats.user is set without a password: set externalNats.existingSecret (or externalNats.password)" -}}
{{- end -}}
{{- if and (eq .Values.tls.mode "native") (not .Values.tls.existingSecret) -}}
{{- $problems = append $problems "tls.mode=native needs tls.existingSecret (a kubernetes.io/tls Secret)" -}}
{{- end -}}
{{- if and .Values.ingress.certManager.clusterIssuer .Values.ingress.certManager.issuer -}}
{{- $problems = append $problems "ingress.certManager.clusterIssuer and ingress.certManager.issuer are both set: choose one" -}}
{{- end -}}
{{- range $name, $c := fromYaml (include "smsgw.components" .) -}}
{{- if and $.Values.metrics.enabled (or (eq (int $.Values.metrics.port) (int $c.port)) (eq (int $.Values.metrics.port) (int $c.public))) -}}
{{- $problems = append $problems (printf "metrics.port %v is the %s service's own port: choose another" $.Values.metrics.port $name) -}}
{{- end -}}
{{- $v := get $.Values $c.key -}}
{{- if and $v.autoscaling.enabled (gt (int $v.autoscaling.minReplicas) (int $v.autoscaling.maxReplicas)) -}}
{{- $problems = append $problems (printf "%s.autoscaling.minReplicas is above maxReplicas" $c.key) -}}
{{- end -}}
{{- if gt (add (int $v.preStopSleepSeconds) 15) (int $v.terminationGracePeriodSeconds) -}}
{{- $problems = append $problems (printf "%s.terminationGracePeriodSeconds must cover preStopSleepSeconds plus the 15 s a service takes to drain" $c.key) -}}
{{- end -}}
{{- end -}}
{{- if $problems -}}
{{- fail (printf "\n\nVALUES VALIDATION:\n- %s" (join "\n- " $problems)) -}}
{{- end -}}
{{- end -}}
