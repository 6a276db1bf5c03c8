{{/*
One service's NetworkPolicy, derived from the table of "smsgw.components": the service accepts
gRPC only from the services that call it, and reaches only the services it calls, its own
dependencies, DNS and (when set) the trace collector. The public ports accept
`networkPolicy.ingressFrom`; only the webhook service reaches the internet, never private ranges.
Usage: {{ include "smsgw.networkPolicy" (dict "context" $ "component" "otp") }}
*/}}
{{- define "smsgw.networkPolicy" -}}
{{- $root := .context -}}
{{- $name := .component -}}
{{- $c := fromYaml (include "smsgw.component.facts" .) -}}
{{- $all := fromYaml (include "smsgw.components" $root) -}}
{{- $np := $root.Values.networkPolicy -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "smsgw.component.fullname" . }}
  labels:
    {{- include "smsgw.labels.component" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "smsgw.labels.matchLabels" . | nindent 6 }}
  policyTypes: [Ingress, Egress]
  ingress:
    {{- $callers := list -}}
    {{- range $caller, $cc := $all -}}
    {{- if has $name $cc.calls -}}{{- $callers = append $callers $caller -}}{{- end -}}
    {{- end }}
    {{- if $callers }}
    - from:
        {{- range $callers }}
        - podSelector:
            matchLabels:
              {{- include "smsgw.labels.matchLabels" (dict "context" $root "component" .) | nindent 14 }}
        {{- end }}
      ports:
        - port: {{ $c.port }}
          protocol: TCP
    {{- end }}
    {{- if $c.public }}
    - ports:
        - port: {{ $c.public }}
          protocol: TCP
      {{- with $np.ingressFrom }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
    {{- if and (eq $c.kind "smpp") $c.values.plain.enabled $c.values.plain.from }}
    - ports:
        - port: 2775
          protocol: TCP
      from:
        {{- toYaml $c.values.plain.from | nindent 8 }}
    {{- end }}
    {{- if and (eq $c.kind "smpp") $np.healthFrom }}
    - from:
        {{- toYaml $np.healthFrom | nindent 8 }}
      ports:
        - port: {{ $c.healthPort }}
          protocol: TCP
    {{- end }}
    {{- with include "smsgw.grpcTls.networkPolicyIngress" . | trim }}
    {{- . | nindent 4 }}
    {{- end }}
    {{- /* Metrics only from the scrapers named in networkPolicy.metricsFrom: an empty `from` would admit any source. */}}
    {{- if and $root.Values.metrics.enabled $np.metricsFrom }}
    - ports:
        - port: {{ $root.Values.metrics.port }}
          protocol: TCP
      from:
        {{- toYaml $np.metricsFrom | nindent 8 }}
    {{- end }}
  egress:
    - to:
        {{- toYaml $np.dnsTo | nindent 8 }}
      ports:
        - port: 53
          protocol: UDP
        - port: 53
          protocol: TCP
    {{- range $c.calls }}
    - to:
        - podSelector:
            matchLabels:
              {{- include "smsgw.labels.matchLabels" (dict "context" $root "component" .) | nindent 14 }}
      ports:
        - port: {{ (get $all .).port }}
          protocol: TCP
    {{- end }}
    {{- range $dep := list (list "postgres" "postgresql" 5432 $root.Values.externalDatabase.port) (list "redis" "redis" 6379 $root.Values.externalRedis.port) (list "nats" "nats" 4222 $root.Values.externalNats.port) }}
    {{- if has (index $dep 0) $c.uses }}
    {{- $bundled := get $root.Values (index $dep 1) }}
    {{- if $bundled.enabled }}
    - to:
        - podSelector:
            matchLabels:
              app.kubernetes.io/name: {{ index $dep 1 }}
              app.kubernetes.io/instance: {{ $root.Release.Name }}
      ports:
        - port: {{ index $dep 2 }}
          protocol: TCP
    {{- else }}
    - ports:
        - port: {{ index $dep 3 }}
          protocol: TCP
      {{- with $np.externalTo }}
      to:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
    {{- end }}
    {{- end }}
    {{- if has "smtp" $c.uses }}
    - ports:
        {{- range $np.smtpPorts }}
        - port: {{ . }}
          protocol: TCP
        {{- end }}
    {{- end }}
    {{- if has "internet" $c.uses }}
    # Webhook deliveries: any public address, on any port, never a private range.
    - to:
        - ipBlock:
            cidr: 0.0.0.0/0
            except:
              {{- toYaml $np.webhookEgressExcept | nindent 14 }}
    {{- end }}
    {{- with $root.Values.telemetry.otlp.endpoint }}
    - ports:
        - port: {{ include "smsgw.urlPort" . }}
          protocol: TCP
      {{- with $np.telemetryTo }}
      to:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
{{- end -}}
