{{/*
Names and labels. Defines share one namespace with the parent chart and the other bundled
charts, hence the `redis.` prefix on each.
*/}}

{{/*
`<release>-redis`, as the parent chart's REDIS_URL expects (no nameOverride: its NetworkPolicies select `app.kubernetes.io/name: redis`).
Usage: {{ include "redis.fullname" $ }}
*/}}
{{- define "redis.fullname" -}}
{{- default (printf "%s-%s" .Release.Name .Chart.Name) .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The labels that select the pod (a StatefulSet's selector never changes after an install).
Usage: {{ include "redis.selectorLabels" $ | nindent 6 }}
*/}}
{{- define "redis.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
Labels of every object of the chart.
Usage: {{ include "redis.labels" $ | nindent 4 }}
*/}}
{{- define "redis.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "redis.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | trunc 63 | quote }}
app.kubernetes.io/component: cache
app.kubernetes.io/part-of: sms-gateway
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/*
The image: `[registry/]repository@digest`, or `:tag`. `global.imageRegistry` wins over
`image.registry`.
Usage: {{ include "redis.image" $ }}
*/}}
{{- define "redis.image" -}}
{{- $registry := default .Values.image.registry .Values.global.imageRegistry -}}
{{- $repo := ternary (printf "%s/%s" $registry .Values.image.repository) .Values.image.repository (ne $registry "") -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $repo .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repo .Values.image.tag -}}
{{- end -}}
{{- end -}}

{{/*
The pod's imagePullSecrets, or nothing.
Usage: {{- with include "redis.imagePullSecrets" $ }}{{ . | nindent 6 }}{{ end }}
*/}}
{{- define "redis.imagePullSecrets" -}}
{{- $secrets := concat .Values.global.imagePullSecrets .Values.imagePullSecrets | uniq -}}
{{- if $secrets -}}
imagePullSecrets:
{{- range $secrets }}
  - name: {{ . }}
{{- end }}
{{- end -}}
{{- end -}}

{{/*
The pod's ServiceAccount: the chart's own (the fullname unless named), or the namespace's
`default` when the chart creates none.
Usage: {{ include "redis.serviceAccountName" $ }}
*/}}
{{- define "redis.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "redis.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/*
The Secret that holds the password: `auth.existingSecret`, or the one the chart creates (the
fullname).
Usage: {{ include "redis.secretName" $ }}
*/}}
{{- define "redis.secretName" -}}
{{- default (include "redis.fullname" .) .Values.auth.existingSecret -}}
{{- end -}}

{{/*
A password kept across upgrades: the existing Secret's (read back with lookup), else 32 random
letters and digits (no character that needs quoting in a URL, a shell or a config file).
Usage: {{ include "redis.keptPassword" (dict "root" $ "key" "redis-password") }}
*/}}
{{- define "redis.keptPassword" -}}
{{- $existing := lookup "v1" "Secret" .root.Release.Namespace (include "redis.fullname" .root) -}}
{{- if and $existing $existing.data (hasKey $existing.data .key) -}}
{{- index $existing.data .key -}}
{{- else -}}
{{- randAlphaNum 32 | b64enc -}}
{{- end -}}
{{- end -}}

{{/*
The probes' command. `-e`: exit non-zero on an error reply (NOAUTH, LOADING), which redis-cli
otherwise prints with exit status 0. The password comes from REDISCLI_AUTH.
Usage: {{- include "redis.ping" $ | nindent 12 }}
*/}}
{{- define "redis.ping" -}}
exec:
  command: [redis-cli, -e, -h, 127.0.0.1, -p, "6379", ping]
{{- end -}}

{{/*
The Secret holding the services' passwords: `auth.usersSecret`, or `<release>-bus-users` (made by
the SMS gateway chart's secrets Job).
Usage: {{ include "redis.usersSecretName" $ }}
*/}}
{{- define "redis.usersSecretName" -}}
{{- default (printf "%s-bus-users" .Release.Name) .Values.auth.usersSecret -}}
{{- end -}}
