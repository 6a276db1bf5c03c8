{{/*
The services' one image: `[registry/]repository@digest`, or `:tag` (the chart's appVersion when
empty). `global.imageRegistry` wins over `image.registry`.
Usage: {{ include "smsgw.images.image" $ }}
*/}}
{{- define "smsgw.images.image" -}}
{{- $registry := default .Values.image.registry .Values.global.imageRegistry -}}
{{- $repo := ternary (printf "%s/%s" $registry .Values.image.repository) .Values.image.repository (ne $registry "") -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" $repo .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repo (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/*
A pod's `imagePullSecrets` (`global.imagePullSecrets` and `imagePullSecrets`), or nothing. Its
output starts with a newline.
Usage: {{- include "smsgw.images.pullSecrets" $ | nindent 6 }}
*/}}
{{- define "smsgw.images.pullSecrets" -}}
{{- $secrets := concat .Values.global.imagePullSecrets .Values.imagePullSecrets | uniq -}}
{{- if $secrets }}
imagePullSecrets:
{{- range $secrets }}
  - name: {{ . }}
{{- end }}
{{- end }}
{{- end -}}
