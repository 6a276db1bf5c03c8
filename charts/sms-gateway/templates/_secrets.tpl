{{/*
The Secret of the services' own keys (`otp-hash-key`, `otp-seal-key`, `hub-tls-ticket-keys`, `smtp-url`):
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
Whether the device-hub reads TLS session-ticket keys (`hub-tls-ticket-keys` of "smsgw.secrets.name",
mounted at /etc/smsgw/tls-tickets): only when it ends TLS itself (`tls.mode: native`). The key comes
from `secrets.existingSecret`, from `secrets.hubTlsTicketKeys` with the OTP keys given, or from the
secrets Job (generated once, as the OTP keys). Every replica shares it and keeps it across restarts
and upgrades, so a reconnecting phone resumes its TLS session instead of a full handshake.
Answers "true" or "".
Usage: {{ if include "smsgw.secrets.ticketKeys" $ }}...{{ end }}
*/}}
{{- define "smsgw.secrets.ticketKeys" -}}
{{- if eq .Values.tls.mode "native" -}}true{{- end -}}
{{- end -}}

{{/*
The ticket keys' read-only mount in the device-hub's container, or nothing.
Usage: {{ include "smsgw.secrets.ticketKeysVolumeMount" (dict "context" $ "component" "device-hub") | nindent 12 }}
*/}}
{{- define "smsgw.secrets.ticketKeysVolumeMount" -}}
{{- if and (eq .component "device-hub") (include "smsgw.secrets.ticketKeys" .context) -}}
- name: tls-tickets
  mountPath: /etc/smsgw/tls-tickets
  readOnly: true
{{- end -}}
{{- end -}}

{{/*
The volume of the ticket keys (the one key of the services' Secret), or nothing. Optional: a
Secret without the key (an existing Secret made before the ticket keys, or OTP keys given as
values without `secrets.hubTlsTicketKeys`) leaves no file, and the hub runs without shared keys
(it says so at start); a pod never waits for it.
Usage: {{ include "smsgw.secrets.ticketKeysVolume" (dict "context" $ "component" "device-hub") | nindent 8 }}
*/}}
{{- define "smsgw.secrets.ticketKeysVolume" -}}
{{- if and (eq .component "device-hub") (include "smsgw.secrets.ticketKeys" .context) -}}
- name: tls-tickets
  secret:
    secretName: {{ include "smsgw.secrets.name" .context }}
    optional: true
    items:
      - key: hub-tls-ticket-keys
        path: ticket-keys
{{- end -}}
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
