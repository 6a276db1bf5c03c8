{{/*
Refuses contradictory values with one message that names each problem (Bitnami's habit). Each
"smsgw.validateValues.<concern>" prints its problems, one a line.
Usage: {{ include "smsgw.validateValues" $ }}
*/}}
{{- define "smsgw.validateValues" -}}
{{- $problems := list -}}
{{- range list "database" "redis" "nats" "tls" "ingress" "components" "metrics" "secrets" "grpcTls" "busUsers" -}}
{{- $problems = concat $problems (include (printf "smsgw.validateValues.%s" .) $ | splitList "\n" | compact) -}}
{{- end -}}
{{- if $problems -}}
{{- fail (printf "\n\nVALUES VALIDATION:\n- %s" (join "\n- " $problems)) -}}
{{- end -}}
{{- end -}}

{{/*
Postgres: the bundled one or an external one, not both nor neither; an external one with a password.
Usage: {{ include "smsgw.validateValues.database" $ }}
*/}}
{{- define "smsgw.validateValues.database" -}}
{{- if and .Values.postgresql.enabled .Values.externalDatabase.host }}
postgresql.enabled and externalDatabase.host are both set: choose the bundled PostgreSQL or an external one
{{- else if and (not .Values.postgresql.enabled) (not .Values.externalDatabase.host) }}
no database: set postgresql.enabled=true or externalDatabase.host
{{- end }}
{{- if and (not .Values.postgresql.enabled) .Values.externalDatabase.host (not .Values.externalDatabase.password) (not .Values.externalDatabase.existingSecret) }}
externalDatabase needs a password: set externalDatabase.existingSecret (or externalDatabase.password)
{{- end }}
{{- end -}}

{{/*
Redis: the bundled one or an external one, not both nor neither.
Usage: {{ include "smsgw.validateValues.redis" $ }}
*/}}
{{- define "smsgw.validateValues.redis" -}}
{{- if and .Values.redis.enabled .Values.externalRedis.host }}
redis.enabled and externalRedis.host are both set: choose the bundled Redis or an external one
{{- else if and (not .Values.redis.enabled) (not .Values.externalRedis.host) }}
no Redis: set redis.enabled=true or externalRedis.host
{{- end }}
{{- end -}}

{{/*
NATS: the bundled one or an external one, not both nor neither; an external user with a password.
Usage: {{ include "smsgw.validateValues.nats" $ }}
*/}}
{{- define "smsgw.validateValues.nats" -}}
{{- if and .Values.nats.enabled .Values.externalNats.host }}
nats.enabled and externalNats.host are both set: choose the bundled NATS or an external one
{{- else if and (not .Values.nats.enabled) (not .Values.externalNats.host) }}
no NATS: set nats.enabled=true or externalNats.host
{{- end }}
{{- if and (not .Values.nats.enabled) .Values.externalNats.user (not .Values.externalNats.password) (not .Values.externalNats.existingSecret) }}
externalNats.user is set without a password: set externalNats.existingSecret (or externalNats.password)
{{- end }}
{{- end -}}

{{/*
TLS: native mode needs the certificate.
Usage: {{ include "smsgw.validateValues.tls" $ }}
*/}}
{{- define "smsgw.validateValues.tls" -}}
{{- if and (eq .Values.tls.mode "native") (not .Values.tls.existingSecret) }}
tls.mode=native needs tls.existingSecret (a kubernetes.io/tls Secret)
{{- end }}
{{- end -}}

{{/*
Ingress: one cert-manager issuer at most.
Usage: {{ include "smsgw.validateValues.ingress" $ }}
*/}}
{{- define "smsgw.validateValues.ingress" -}}
{{- if and .Values.ingress.certManager.clusterIssuer .Values.ingress.certManager.issuer }}
ingress.certManager.clusterIssuer and ingress.certManager.issuer are both set: choose one
{{- end }}
{{- end -}}

{{/*
Each service: a port of its own (not the metrics port), an autoscaler's bounds in order, a grace
period that covers the preStop sleep and the drain.
Usage: {{ include "smsgw.validateValues.components" $ }}
*/}}
{{- define "smsgw.validateValues.components" -}}
{{- range $name, $c := fromYaml (include "smsgw.components" .) }}
{{- if and $.Values.metrics.enabled (or (eq (int $.Values.metrics.port) (int $c.port)) (eq (int $.Values.metrics.port) (int $c.public))) }}
metrics.port {{ $.Values.metrics.port }} is the {{ $name }} service's own port: choose another
{{- end }}
{{- $v := get $.Values $c.key }}
{{- if and $v.autoscaling.enabled (gt (int $v.autoscaling.minReplicas) (int $v.autoscaling.maxReplicas)) }}
{{ $c.key }}.autoscaling.minReplicas is above maxReplicas
{{- end }}
{{- if gt (add (int $v.preStopSleepSeconds) 15) (int $v.terminationGracePeriodSeconds) }}
{{ $c.key }}.terminationGracePeriodSeconds must cover preStopSleepSeconds plus the 15 s a service takes to drain
{{- end }}
{{- end }}
{{- end -}}

{{/*
Metrics: with NetworkPolicies on, a ServiceMonitor is useless unless the scrapers are named.
Usage: {{ include "smsgw.validateValues.metrics" $ }}
*/}}
{{- define "smsgw.validateValues.metrics" -}}
{{- if and .Values.metrics.enabled .Values.metrics.serviceMonitor.enabled .Values.networkPolicy.enabled (not .Values.networkPolicy.metricsFrom) }}
metrics.serviceMonitor.enabled with networkPolicy.enabled: set networkPolicy.metricsFrom to Prometheus' pods or namespace, or nothing may scrape /metrics
{{- end }}
{{- end -}}

{{/*
Secrets: both OTP keys given, or neither (then the secrets Job generates them, and the hub's ticket
keys with them). Given alone, the ticket keys would have no Secret to go to. Given OTP keys without
ticket keys leave the hub without shared ones (see "smsgw.secrets.ticketKeysVolume").
Usage: {{ include "smsgw.validateValues.secrets" $ }}
*/}}
{{- define "smsgw.validateValues.secrets" -}}
{{- if not .Values.secrets.existingSecret }}
{{- if ne (empty .Values.secrets.otpHashKey) (empty .Values.secrets.otpSealKey) }}
secrets.otpHashKey and secrets.otpSealKey: set both or neither (neither: a Job generates them once in the cluster)
{{- end }}
{{- if and .Values.secrets.hubTlsTicketKeys (include "smsgw.secrets.generated" .) }}
secrets.hubTlsTicketKeys is set without the OTP keys: give it with secrets.otpHashKey and secrets.otpSealKey, or leave all three empty (a Job generates them once in the cluster)
{{- end }}
{{- end }}
{{- with .Values.secrets.hubTlsTicketKeys }}
{{- if ne (len (b64dec .)) 48 }}
secrets.hubTlsTicketKeys must be the base64 of 48 random bytes (openssl rand -base64 48)
{{- end }}
{{- end }}
{{- end -}}
