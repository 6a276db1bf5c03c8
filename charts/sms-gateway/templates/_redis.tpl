{{/*
Where the services' Redis is (the bundled chart's, or `externalRedis.*`) and whether and where
its password is.
*/}}

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
