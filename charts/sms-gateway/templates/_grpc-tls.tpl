{{/*
Mutual TLS between the services. Every service that serves or calls gRPC holds a certificate
whose URI SAN `spiffe://smsgw/<identity>` names it; the operators' tool has the `admin` identity.
The certificates come from one of three places (`grpcTls.*`):
  generated     (default) the hook Job of templates/grpc-tls.yaml makes them in the cluster
  certManager   cert-manager `Certificate`s signed by `grpcTls.certManager.issuerRef`
  existing      Secrets the operator made, named in `grpcTls.existingSecrets`
Each is a Secret with `ca.crt`, `tls.crt` and `tls.key`, mounted at /etc/smsgw/grpc-tls.
*/}}

{{/*
Every gRPC identity of the release, services first, then `admin`.
Usage: {{ range (include "smsgw.grpcTls.identities" $ | fromYamlArray) }}...{{ end }}
*/}}
{{- define "smsgw.grpcTls.identities" -}}
{{- toYaml (append (keys (fromYaml (include "smsgw.components" .)) | sortAlpha) "admin") -}}
{{- end -}}

{{/*
Where the certificates come from: `generated`, `certManager`, `existing`, or `off` when
`grpcTls.enabled` is false (a mesh does mutual TLS).
Usage: {{ if eq (include "smsgw.grpcTls.mode" $) "generated" }}...{{ end }}
*/}}
{{- define "smsgw.grpcTls.mode" -}}
{{- $t := .Values.grpcTls -}}
{{- if not $t.enabled -}}off
{{- else if $t.certManager.enabled -}}certManager
{{- else if $t.existingSecrets -}}existing
{{- else -}}generated
{{- end -}}
{{- end -}}

{{/*
The key of one identity in `grpcTls.existingSecrets`: the service's values key (`deviceHub`),
or the identity itself (`admin`).
Usage: {{ include "smsgw.grpcTls.valuesKey" (dict "context" $ "component" "device-hub") }}
*/}}
{{- define "smsgw.grpcTls.valuesKey" -}}
{{- $c := get (fromYaml (include "smsgw.components" .context)) .component -}}
{{- if $c -}}{{- $c.key -}}{{- else -}}{{- .component -}}{{- end -}}
{{- end -}}

{{/*
The Secret of one identity's certificate: the one named in `grpcTls.existingSecrets`, else
`<fullname>-<identity>-grpc-tls` (made by the hook Job or by cert-manager).
Usage: {{ include "smsgw.grpcTls.secretName" (dict "context" $ "component" "gateway") }}
*/}}
{{- define "smsgw.grpcTls.secretName" -}}
{{- $given := "" -}}
{{- if eq (include "smsgw.grpcTls.mode" .context) "existing" -}}
{{- $given = get .context.Values.grpcTls.existingSecrets (include "smsgw.grpcTls.valuesKey" .) -}}
{{- end -}}
{{- default (printf "%s-%s-grpc-tls" (include "smsgw.fullname" .context) .component) $given -}}
{{- end -}}

{{/*
The Secret of the certificate authority the hook Job signs with (`ca.crt`, `ca.key`).
Usage: {{ include "smsgw.grpcTls.caSecretName" $ }}
*/}}
{{- define "smsgw.grpcTls.caSecretName" -}}
{{- printf "%s-grpc-ca" (include "smsgw.fullname" .) -}}
{{- end -}}

{{/*
One service's gRPC TLS settings: the three PEM files, or `GRPC_TLS=off`; and for a gRPC server,
the plaintext port of its health service (the probes'; see "smsgw.probes").
Usage: {{ include "smsgw.env.grpcTls" (dict "context" $ "component" "otp") | nindent 12 }}
*/}}
{{- define "smsgw.env.grpcTls" -}}
{{- $c := fromYaml (include "smsgw.component.facts" .) -}}
{{- if .context.Values.grpcTls.enabled -}}
- name: GRPC_TLS_CA_FILE
  value: /etc/smsgw/grpc-tls/ca.crt
- name: GRPC_TLS_CERT_FILE
  value: /etc/smsgw/grpc-tls/tls.crt
- name: GRPC_TLS_KEY_FILE
  value: /etc/smsgw/grpc-tls/tls.key
{{- else -}}
- name: GRPC_TLS
  value: "off"
{{- end }}
{{- if eq $c.kind "grpc" }}
- name: GRPC_HEALTH_PORT
  value: {{ $c.healthPort | quote }}
{{- end }}
{{- end -}}

{{/*
The container port of a gRPC server's plaintext health service, or nothing.
Usage: {{ include "smsgw.grpcTls.healthContainerPort" (dict "context" $ "component" "otp") | nindent 12 }}
*/}}
{{- define "smsgw.grpcTls.healthContainerPort" -}}
{{- $c := fromYaml (include "smsgw.component.facts" .) -}}
{{- if eq $c.kind "grpc" -}}
- name: grpc-health
  containerPort: {{ $c.healthPort }}
  protocol: TCP
{{- end -}}
{{- end -}}

{{/*
The certificate's read-only mount, or nothing when gRPC TLS is off.
Usage: {{ include "smsgw.grpcTls.volumeMount" (dict "context" $ "component" "otp") | nindent 12 }}
*/}}
{{- define "smsgw.grpcTls.volumeMount" -}}
{{- if .context.Values.grpcTls.enabled -}}
- name: grpc-tls
  mountPath: /etc/smsgw/grpc-tls
  readOnly: true
{{- end -}}
{{- end -}}

{{/*
The volume of one service's certificate Secret, or nothing when gRPC TLS is off. A Secret that
changes reaches the files, but a service reads them once, at start: restart to use a new one.
Usage: {{ include "smsgw.grpcTls.volume" (dict "context" $ "component" "otp") | nindent 8 }}
*/}}
{{- define "smsgw.grpcTls.volume" -}}
{{- if .context.Values.grpcTls.enabled -}}
- name: grpc-tls
  secret:
    secretName: {{ include "smsgw.grpcTls.secretName" . }}
{{- end -}}
{{- end -}}

{{/*
The services the operators' tool (`admin` identity) calls: their NetworkPolicies admit the
release's pods labelled `app.kubernetes.io/component: admin` on the gRPC port.
Usage: {{ if has "account" (include "smsgw.grpcTls.adminCalls" $ | fromYamlArray) }}...{{ end }}
*/}}
{{- define "smsgw.grpcTls.adminCalls" -}}
[account, device-hub, webhook]
{{- end -}}

{{/*
The ingress rules a service's NetworkPolicy adds for mutual TLS: the operators' tool on the gRPC
port, and the health port from `networkPolicy.healthFrom` only (the kubelet's probes pass without
a rule on most network plugins; no other pod may reach it).
Usage: {{ include "smsgw.grpcTls.networkPolicyIngress" (dict "context" $ "component" "otp") | nindent 4 }}
*/}}
{{- define "smsgw.grpcTls.networkPolicyIngress" -}}
{{- $root := .context -}}
{{- $c := fromYaml (include "smsgw.component.facts" .) -}}
{{- if has .component (include "smsgw.grpcTls.adminCalls" $root | fromYamlArray) }}
- from:
    - podSelector:
        matchLabels:
          {{- include "smsgw.labels.matchLabels" (dict "context" $root "component" "admin") | nindent 10 }}
  ports:
    - port: {{ $c.port }}
      protocol: TCP
{{- end }}
{{- if and (eq $c.kind "grpc") $root.Values.networkPolicy.healthFrom }}
- from:
    {{- toYaml $root.Values.networkPolicy.healthFrom | nindent 4 }}
  ports:
    - port: {{ $c.healthPort }}
      protocol: TCP
{{- end }}
{{- end -}}

{{/*
gRPC TLS: one way to get the certificates, complete; health ports apart from the metrics port.
Usage: {{ include "smsgw.validateValues.grpcTls" $ }}
*/}}
{{- define "smsgw.validateValues.grpcTls" -}}
{{- $t := .Values.grpcTls -}}
{{- if $t.enabled }}
{{- if and $t.certManager.enabled (not $t.certManager.issuerRef.name) }}
grpcTls.certManager.enabled needs grpcTls.certManager.issuerRef.name: a CA Issuer or ClusterIssuer that may sign URI SANs (an ACME issuer cannot)
{{- end }}
{{- if and $t.certManager.enabled $t.existingSecrets }}
grpcTls.certManager.enabled and grpcTls.existingSecrets are both set: choose cert-manager or your own Secrets
{{- end }}
{{- if and (not $t.certManager.enabled) $t.existingSecrets }}
{{- $missing := list }}
{{- range $name, $c := fromYaml (include "smsgw.components" .) }}
{{- if not (get $t.existingSecrets $c.key) }}{{ $missing = append $missing $c.key }}{{ end }}
{{- end }}
{{- if $missing }}
grpcTls.existingSecrets names no Secret for {{ join ", " (sortAlpha $missing) }}: give every service its Secret (ca.crt, tls.crt, tls.key), or none to have them generated
{{- end }}
{{- end }}
{{- end }}
{{- range $name, $c := fromYaml (include "smsgw.components" .) }}
{{- if and $c.healthPort $.Values.metrics.enabled (eq (int $.Values.metrics.port) (int $c.healthPort)) }}
metrics.port {{ $.Values.metrics.port }} is the {{ $name }} service's health port: choose another
{{- end }}
{{- end }}
{{- end -}}
