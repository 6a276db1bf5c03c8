{{/*
Where the services' Postgres is (the bundled chart's, or `externalDatabase.*`) and where its
password is.
*/}}

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
