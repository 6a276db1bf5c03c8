{{/*
One service's ServiceAccount, whose token is never mounted.
Usage: {{ include "smsgw.serviceAccount" (dict "context" $ "component" "webhook") }}
*/}}
{{- define "smsgw.serviceAccount" -}}
{{- $v := (fromYaml (include "smsgw.component.facts" .)).values -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "smsgw.component.serviceAccountName" . }}
  labels:
    {{- include "smsgw.labels.component" . | nindent 4 }}
  {{- with $v.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
# No service calls the Kubernetes API.
automountServiceAccountToken: false
{{- end -}}
