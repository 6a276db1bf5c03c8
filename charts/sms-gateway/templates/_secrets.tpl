{{/*
The Secret of the services' own keys (`otp-hash-key`, `otp-seal-key`, `smtp-url`):
`secrets.existingSecret`, or the one this chart creates (`<fullname>-secrets`).
Usage: {{ include "smsgw.secrets.name" $ }}
*/}}
{{- define "smsgw.secrets.name" -}}
{{- default (printf "%s-secrets" (include "smsgw.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{/*
One key of a Secret the chart creates, as Secret data (base64), kept across upgrades: the given
value, else the existing Secret's (read back with lookup), else 32 random bytes.
Usage: {{ include "smsgw.secrets.keptValue" (dict "context" $ "secret" "smsgw-sms-gateway-secrets" "key" "otp-hash-key" "value" .Values.secrets.otpHashKey) }}
*/}}
{{- define "smsgw.secrets.keptValue" -}}
{{- $existing := lookup "v1" "Secret" .context.Release.Namespace .secret -}}
{{- if .value -}}
{{- .value | b64enc -}}
{{- else if and $existing (hasKey $existing.data .key) -}}
{{- index $existing.data .key -}}
{{- else -}}
{{- /* randBytes answers the base64 of the bytes; Secret data is base64 again. */ -}}
{{- randBytes 32 | b64enc -}}
{{- end -}}
{{- end -}}
