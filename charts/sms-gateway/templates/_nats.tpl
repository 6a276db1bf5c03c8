{{/*
Where the services' NATS is (the bundled chart's, or `externalNats.*`) and who they connect as.
*/}}

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
