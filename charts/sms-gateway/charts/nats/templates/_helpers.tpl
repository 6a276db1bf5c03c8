{{/*
Names and labels. Defines share one namespace with the parent chart and the other bundled
charts, hence the `nats.` prefix on each.
*/}}

{{/*
`<release>-nats`, as the parent chart's NATS_URL expects (no nameOverride: its NetworkPolicies select `app.kubernetes.io/name: nats`).
Usage: {{ include "nats.fullname" $ }}
*/}}
{{- define "nats.fullname" -}}
{{- default (printf "%s-%s" .Release.Name .Chart.Name) .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The labels that select the pod (a StatefulSet's selector never changes after an install).
Usage: {{ include "nats.selectorLabels" $ | nindent 6 }}
*/}}
{{- define "nats.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
Labels of every object of the chart.
Usage: {{ include "nats.labels" $ | nindent 4 }}
*/}}
{{- define "nats.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{ include "nats.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | trunc 63 | quote }}
app.kubernetes.io/component: messaging
app.kubernetes.io/part-of: sms-gateway
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/*
The image: `[registry/]repository@digest`, or `:tag`. `global.imageRegistry` wins over
`image.registry`.
Usage: {{ include "nats.image" $ }}
*/}}
{{- define "nats.image" -}}
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
Usage: {{- with include "nats.imagePullSecrets" $ }}{{ . | nindent 6 }}{{ end }}
*/}}
{{- define "nats.imagePullSecrets" -}}
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
Usage: {{ include "nats.serviceAccountName" $ }}
*/}}
{{- define "nats.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "nats.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/*
The Secret that holds the password: `auth.existingSecret`, or the one the chart creates (the
fullname).
Usage: {{ include "nats.secretName" $ }}
*/}}
{{- define "nats.secretName" -}}
{{- default (include "nats.fullname" .) .Values.auth.existingSecret -}}
{{- end -}}

{{/*
A password kept across upgrades: the existing Secret's (read back with lookup), else 32 random
letters and digits (no character that needs quoting in a URL, a shell or a config file).
Usage: {{ include "nats.keptPassword" (dict "root" $ "key" "nats-password") }}
*/}}
{{- define "nats.keptPassword" -}}
{{- $existing := lookup "v1" "Secret" .root.Release.Namespace (include "nats.fullname" .root) -}}
{{- if and $existing $existing.data (hasKey $existing.data .key) -}}
{{- index $existing.data .key -}}
{{- else -}}
{{- randAlphaNum 32 | b64enc -}}
{{- end -}}
{{- end -}}

{{/*
Bytes of a size as nats-server and Kubernetes write it: 8Gi, 512M, 1GB, 1024.
Usage: {{ include "nats.bytes" "8Gi" }}
*/}}
{{- define "nats.bytes" -}}
{{- $m := regexFind "^[0-9]+" (toString .) -}}
{{- $unit := trimPrefix $m (toString .) | upper | trimSuffix "B" | trimSuffix "I" -}}
{{- $binary := or (hasSuffix "i" (toString .)) (hasSuffix "B" (toString .)) -}}
{{- $base := ternary 1024 1000 $binary -}}
{{- $exp := get (dict "" 0 "K" 1 "M" 2 "G" 3 "T" 4) $unit | default 0 -}}
{{- $n := int64 $m -}}
{{- range until (int $exp) }}{{ $n = mul $n $base }}{{ end -}}
{{- $n -}}
{{- end -}}

{{/*
Refuses contradictory values with one message that names each problem.
Usage: {{- include "nats.validateValues" $ -}}
*/}}
{{- define "nats.validateValues" -}}
{{- $problems := list -}}
{{- if and .Values.persistence.enabled (ge (int64 (include "nats.bytes" .Values.jetstream.maxFileStore)) (int64 (include "nats.bytes" .Values.persistence.size))) -}}
{{- $problems = append $problems (printf "nats.jetstream.maxFileStore (%s) must be below nats.persistence.size (%s): the volume also holds the store's indexes, and a full volume fails every publish" .Values.jetstream.maxFileStore .Values.persistence.size) -}}
{{- end -}}
{{- if $problems -}}
{{- fail (printf "\n\nVALUES VALIDATION:\n- %s" (join "\n- " $problems)) -}}
{{- end -}}
{{- end -}}

{{/*
The Secret holding the services' passwords: `auth.usersSecret`, or `<release>-bus-users` (made by
the SMS gateway chart's secrets Job).
Usage: {{ include "nats.usersSecretName" $ }}
*/}}
{{- define "nats.usersSecretName" -}}
{{- default (printf "%s-bus-users" .Release.Name) .Values.auth.usersSecret -}}
{{- end -}}

{{/*
A permissions rule of nats-server for a list of subjects: `allow` them, or deny everything when
the list is empty (an empty allow list would allow every subject).
Usage: {{ include "nats.subjectRule" (list "a.>" "b") }}
*/}}
{{- define "nats.subjectRule" -}}
{{- if . -}}
{ allow: [{{ range $i, $s := . }}{{ if $i }}, {{ end }}{{ $s | quote }}{{ end }}] }
{{- else -}}
{ deny: [">"] }
{{- end -}}
{{- end -}}
