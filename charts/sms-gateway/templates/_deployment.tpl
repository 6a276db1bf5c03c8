{{/*
One service's Deployment: rolling updates that never lower capacity, pods spread over zones and
nodes, hardened, with the probes of "smsgw.probes", the environment of "smsgw.env.common", and
its gRPC certificate mounted and named by "smsgw.env.grpcTls".
Usage: {{ include "smsgw.deployment" (dict "context" $ "component" "gateway") }}
*/}}
{{- define "smsgw.deployment" -}}
{{- $root := .context -}}
{{- $c := fromYaml (include "smsgw.component.facts" .) -}}
{{- $v := $c.values -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "smsgw.component.fullname" . }}
  labels:
    {{- include "smsgw.labels.component" . | nindent 4 }}
spec:
  {{- if not $v.autoscaling.enabled }}
  replicas: {{ $v.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 5
  strategy:
    type: RollingUpdate
    rollingUpdate:
      # A new pod is ready before an old one goes: capacity never drops during a rollout.
      maxSurge: 1
      maxUnavailable: 0
  selector:
    matchLabels:
      {{- include "smsgw.labels.matchLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "smsgw.labels.component" . | nindent 8 }}
        {{- with $v.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        {{- if $root.Values.metrics.enabled }}
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ $root.Values.metrics.port | quote }}
        prometheus.io/path: /metrics
        {{- end }}
        {{- with $v.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "smsgw.component.serviceAccountName" . }}
      automountServiceAccountToken: false
      {{- include "smsgw.images.pullSecrets" $root | nindent 6 }}
      securityContext:
        {{- toYaml $root.Values.podSecurityContext | nindent 8 }}
      terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
      {{- with $v.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      topologySpreadConstraints:
        {{- if $v.topologySpreadConstraints }}
        {{- toYaml $v.topologySpreadConstraints | nindent 8 }}
        {{- else }}
        {{- range list "topology.kubernetes.io/zone" "kubernetes.io/hostname" }}
        - maxSkew: 1
          topologyKey: {{ . }}
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels:
              {{- include "smsgw.labels.matchLabels" $ | nindent 14 }}
        {{- end }}
        {{- end }}
      {{- with include "smsgw.initContainers" . }}
      {{- . | nindent 6 }}
      {{- end }}
      containers:
        - name: {{ .component }}
          image: {{ include "smsgw.images.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args: [{{ printf "services/%s/dist/main.js" .component | quote }}]
          securityContext:
            {{- toYaml $root.Values.containerSecurityContext | nindent 12 }}
          ports:
            - name: {{ $c.kind }}
              containerPort: {{ $c.port }}
              protocol: TCP
            {{- with include "smsgw.grpcTls.healthContainerPort" . }}
            {{- . | nindent 12 }}
            {{- end }}
            {{- if eq $c.kind "smpp" }}
            - name: health
              containerPort: {{ $c.healthPort }}
              protocol: TCP
            {{- if $v.plain.enabled }}
            - name: smpp-plain
              containerPort: 2775
              protocol: TCP
            {{- end }}
            {{- end }}
            {{- if and $c.public (eq $c.kind "grpc") }}
            - name: agent
              containerPort: {{ $c.public }}
              protocol: TCP
            {{- end }}
            {{- if $root.Values.metrics.enabled }}
            - name: metrics
              containerPort: {{ $root.Values.metrics.port }}
              protocol: TCP
            {{- end }}
          env:
            {{- include "smsgw.env.common" . | nindent 12 }}
            {{- include "smsgw.env.grpcTls" . | nindent 12 }}
            {{- include (printf "smsgw.env.%s" .component) $root | nindent 12 }}
            {{- with $v.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- include "smsgw.probes" . | nindent 10 }}
          {{- if $v.preStopSleepSeconds }}
          lifecycle:
            preStop:
              sleep:
                seconds: {{ $v.preStopSleepSeconds }}
          {{- end }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- with include "smsgw.grpcTls.volumeMount" . }}
            {{- . | nindent 12 }}
            {{- end }}
            {{- if or (and (eq $root.Values.tls.mode "native") $c.public) (eq $c.kind "smpp") }}
            - name: tls
              mountPath: /etc/smsgw/tls
              readOnly: true
            {{- end }}
            {{- with include "smsgw.secrets.ticketKeysVolumeMount" . }}
            {{- . | nindent 12 }}
            {{- end }}
            {{- with $v.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        # The root filesystem is read-only; /tmp is the only place a service may write.
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
        {{- with include "smsgw.grpcTls.volume" . }}
        {{- . | nindent 8 }}
        {{- end }}
        {{- if or (and (eq $root.Values.tls.mode "native") $c.public) (eq $c.kind "smpp") }}
        - name: tls
          secret:
            {{- /* SMPP over TLS is served by the pod itself, in either TLS mode. */}}
            secretName: {{ ternary (default $root.Values.tls.existingSecret $root.Values.smpp.tls.existingSecret) $root.Values.tls.existingSecret (eq $c.kind "smpp") }}
        {{- end }}
        {{- with include "smsgw.secrets.ticketKeysVolume" . }}
        {{- . | nindent 8 }}
        {{- end }}
        {{- with $v.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
{{- end -}}
