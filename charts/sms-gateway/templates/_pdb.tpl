{{/*
One service's PodDisruptionBudget: `pdb.minAvailable` when set, else `pdb.maxUnavailable`.
Usage: {{ include "smsgw.pdb" (dict "context" $ "component" "otp") }}
*/}}
{{- define "smsgw.pdb" -}}
{{- $v := (fromYaml (include "smsgw.component.facts" .)).values -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "smsgw.component.fullname" . }}
  labels:
    {{- include "smsgw.labels.component" . | nindent 4 }}
spec:
  {{- if ne (toString $v.pdb.minAvailable) "" }}
  minAvailable: {{ $v.pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $v.pdb.maxUnavailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "smsgw.labels.matchLabels" . | nindent 6 }}
{{- end -}}
