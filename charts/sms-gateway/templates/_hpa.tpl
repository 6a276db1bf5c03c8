{{/*
One service's HorizontalPodAutoscaler, on CPU (the Deployment then leaves `replicas` to it).
Usage: {{ include "smsgw.hpa" (dict "context" $ "component" "gateway") }}
*/}}
{{- define "smsgw.hpa" -}}
{{- $v := (fromYaml (include "smsgw.component.facts" .)).values -}}
{{- $fullname := include "smsgw.component.fullname" . -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "smsgw.labels.component" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ $fullname }}
  minReplicas: {{ $v.autoscaling.minReplicas }}
  maxReplicas: {{ $v.autoscaling.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ $v.autoscaling.targetCPUUtilizationPercentage }}
{{- end -}}
