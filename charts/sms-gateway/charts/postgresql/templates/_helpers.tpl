{{/*
Names and labels. Defines share one namespace with the parent chart and the other bundled
charts, hence the `postgresql.` prefix on each.
*/}}

{{/*
`<release>-postgresql`, as the parent chart's DATABASE_URL expects (no nameOverride: its NetworkPolicies select `app.kubernetes.io/name: postgresql`).
Usage: {{ include "postgresql.fullname" $ }}
*/}}
{{- define "postgresql.fullname" -}}
{{- default (printf "%s-%s" .Release.Name .Chart.Name) .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The labels that select the pod (a StatefulSet's selector never changes after an install).
Usage: {{ include "postgresql.selectorLabels" $ | nindent 6 }}
*/}}
{{- define "postgresql.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
Labels of every object of the chart.
Usage: {{ include "postgresql.labels" $ | nindent 4 }}
*/}}
{{- define "postgresql.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "postgresql.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | trunc 63 | quote }}
app.kubernetes.io/component: database
app.kubernetes.io/part-of: sms-gateway
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/*
The image: `[registry/]repository@digest`, or `:tag`. `global.imageRegistry` wins over
`image.registry`.
Usage: {{ include "postgresql.image" $ }}
*/}}
{{- define "postgresql.image" -}}
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
Usage: {{- with include "postgresql.imagePullSecrets" $ }}{{ . | nindent 6 }}{{ end }}
*/}}
{{- define "postgresql.imagePullSecrets" -}}
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
Usage: {{ include "postgresql.serviceAccountName" $ }}
*/}}
{{- define "postgresql.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "postgresql.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/*
The Secret that holds both passwords: `auth.existingSecret`, or the one the chart creates (the
fullname).
Usage: {{ include "postgresql.secretName" $ }}
*/}}
{{- define "postgresql.secretName" -}}
{{- default (include "postgresql.fullname" .) .Values.auth.existingSecret -}}
{{- end -}}

{{/*
A password kept across upgrades: the existing Secret's (read back with lookup), else 32 random
letters and digits (no character that needs quoting in a URL, a shell or a config file).
Usage: {{ include "postgresql.keptPassword" (dict "root" $ "key" "password") }}
*/}}
{{- define "postgresql.keptPassword" -}}
{{- $existing := lookup "v1" "Secret" .root.Release.Namespace (include "postgresql.fullname" .root) -}}
{{- if and $existing $existing.data (hasKey $existing.data .key) -}}
{{- index $existing.data .key -}}
{{- else -}}
{{- randAlphaNum 32 | b64enc -}}
{{- end -}}
{{- end -}}

{{/*
The probes' command: accepting connections on the port the Service targets.
Usage: {{- include "postgresql.isReady" $ | nindent 12 }}
*/}}
{{- define "postgresql.isReady" -}}
exec:
  command: [pg_isready, --host=127.0.0.1, --port=5432, --username={{ .Values.auth.username }}, --dbname={{ .Values.auth.database }}, --quiet]
{{- end -}}

{{/*
Refuses contradictory values with one message that names each problem.
Usage: {{- include "postgresql.validateValues" $ -}}
*/}}
{{- define "postgresql.validateValues" -}}
{{- $problems := list -}}
{{- if eq .Values.auth.username "postgres" -}}
{{- $problems = append $problems "postgresql.auth.username must not be the superuser `postgres`: the services' user owns their database and nothing else" -}}
{{- end -}}
{{- if eq .Values.auth.secretKeys.userPasswordKey .Values.auth.secretKeys.adminPasswordKey -}}
{{- $problems = append $problems "postgresql.auth.secretKeys.userPasswordKey and adminPasswordKey are the same key: the services' user and the superuser need passwords of their own" -}}
{{- end -}}
{{- if $problems -}}
{{- fail (printf "\n\nVALUES VALIDATION:\n- %s" (join "\n- " $problems)) -}}
{{- end -}}
{{- end -}}
