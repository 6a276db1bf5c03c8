{{/*
The Secret of the services' own keys (`otp-hash-key`, `otp-seal-key`, `smtp-url`):
`secrets.existingSecret`, or the one this chart creates (`<fullname>-secrets`).
Usage: {{ include "smsgw.secrets.name" $ }}
*/}}
{{- define "smsgw.secrets.name" -}}
{{- default (printf "%s-secrets" (include "smsgw.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{/*
Whether the OTP keys are generated in the cluster, by the secrets Job (templates/secrets-job.yaml),
rather than given: no `secrets.existingSecret` and no `secrets.otpHashKey`/`otpSealKey`. Rendering
random keys instead would change them at every `helm template` (Argo CD, Flux), which voids every
OTP in flight; the Job makes them once and never changes them. Answers "true" or "".
Usage: {{ if include "smsgw.secrets.generated" $ }}...{{ end }}
*/}}
{{- define "smsgw.secrets.generated" -}}
{{- if and (not .Values.secrets.existingSecret) (not .Values.secrets.otpHashKey) (not .Values.secrets.otpSealKey) -}}true{{- end -}}
{{- end -}}

{{/*
The Secret holding `smtp-url`: `secrets.existingSecret`, else the rendered `<fullname>-secrets`
when the OTP keys are given, else `<fullname>-smtp` (the generated keys' Secret is the Job's).
Usage: {{ include "smsgw.secrets.smtpName" $ }}
*/}}
{{- define "smsgw.secrets.smtpName" -}}
{{- if .Values.secrets.existingSecret -}}
{{- .Values.secrets.existingSecret -}}
{{- else if include "smsgw.secrets.generated" . -}}
{{- printf "%s-smtp" (include "smsgw.fullname" .) -}}
{{- else -}}
{{- include "smsgw.secrets.name" . -}}
{{- end -}}
{{- end -}}
