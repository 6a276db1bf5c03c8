{{/*
Everything one service runs as: its ServiceAccount, Service, Deployment, HorizontalPodAutoscaler,
PodDisruptionBudget, NetworkPolicy and ServiceMonitor. Each service's own file calls
  {{ include "smsgw.service" (dict "root" $ "name" "<service>") }}
after defining "smsgw.env.<service>" (the settings only that service reads).
*/}}
{{- define "smsgw.service" -}}
{{- $root := .root -}}
{{- $c := fromYaml (include "smsgw.component" .) -}}
{{- $v := $c.values -}}
{{- $fullname := include "smsgw.componentFullname" . }}
{{- if $v.serviceAccount.create }}
---
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "smsgw.serviceAccountName" . }}
  labels:
    {{- include "smsgw.componentLabels" . | nindent 4 }}
  {{- with $v.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
# No service calls the Kubernetes API.
automountServiceAccountToken: false
{{- end }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "smsgw.componentLabels" . | nindent 4 }}
spec:
  {{- if and (eq $c.kind "grpc") $root.Values.grpc.clientSideBalancing }}
  # Headless: gRPC clients resolve every replica and balance calls over them.
  clusterIP: None
  {{- else }}
  type: ClusterIP
  {{- end }}
  selector:
    {{- include "smsgw.selectorLabels" . | nindent 4 }}
  ports:
    - name: {{ $c.kind }}
      port: {{ $c.port }}
      targetPort: {{ $c.kind }}
      {{- if eq $c.kind "grpc" }}
      appProtocol: grpc
      {{- end }}
    {{- if and $c.public (ne $c.kind "http") }}
    - name: agent
      port: {{ $c.public }}
      targetPort: agent
    {{- end }}
    {{- if $root.Values.metrics.enabled }}
    - name: metrics
      port: {{ $root.Values.metrics.port }}
      targetPort: metrics
    {{- end }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "smsgw.componentLabels" . | nindent 4 }}
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
      {{- include "smsgw.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "smsgw.componentLabels" . | nindent 8 }}
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
      serviceAccountName: {{ include "smsgw.serviceAccountName" . }}
      automountServiceAccountToken: false
      {{- include "smsgw.imagePullSecrets" $root | nindent 6 }}
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
              {{- include "smsgw.selectorLabels" $ | nindent 14 }}
        {{- end }}
        {{- end }}
      {{- $deps := include "smsgw.dependencyAddresses" . | fromYamlArray }}
      {{- if and $root.Values.waitForDependencies $deps }}
      initContainers:
        # Waits until the dependencies accept connections, so a first install does not
        # crash-loop (and back off for minutes) while the bundled ones start.
        - name: wait-for-dependencies
          image: {{ include "smsgw.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args:
            - -e
            - {{ include "smsgw.waitScript" . | quote }}
            {{- range $deps }}
            - {{ . | quote }}
            {{- end }}
          securityContext:
            {{- toYaml $root.Values.containerSecurityContext | nindent 12 }}
          resources:
            requests: { cpu: 10m, memory: 32Mi }
            limits: { memory: 96Mi }
      {{- end }}
      containers:
        - name: {{ .name }}
          image: {{ include "smsgw.image" $root }}
          imagePullPolicy: {{ $root.Values.image.pullPolicy }}
          args: [{{ printf "services/%s/dist/main.js" .name | quote }}]
          securityContext:
            {{- toYaml $root.Values.containerSecurityContext | nindent 12 }}
          ports:
            - name: {{ $c.kind }}
              containerPort: {{ $c.port }}
              protocol: TCP
            {{- if and $c.public (ne $c.kind "http") }}
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
            {{- include "smsgw.commonEnv" . | nindent 12 }}
            {{- include (printf "smsgw.env.%s" .name) $root | nindent 12 }}
            {{- with $v.extraEnv }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
          {{- if eq $c.kind "grpc" }}
          # The 'liveness' health service answers SERVING while the process does; '' (readiness)
          # answers NOT_SERVING until the migrations ran and while a dependency is down.
          startupProbe:
            grpc: { port: {{ $c.port }}, service: liveness }
            periodSeconds: 2
            failureThreshold: 60
          livenessProbe:
            grpc: { port: {{ $c.port }}, service: liveness }
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 3
          readinessProbe:
            grpc: { port: {{ $c.port }} }
            periodSeconds: 5
            timeoutSeconds: 3
            failureThreshold: 2
          {{- else }}
          {{- $scheme := ternary "HTTPS" "HTTP" (eq $root.Values.tls.mode "native") }}
          startupProbe:
            httpGet: { path: /healthz, port: http, scheme: {{ $scheme }} }
            periodSeconds: 2
            failureThreshold: 60
          livenessProbe:
            httpGet: { path: /healthz, port: http, scheme: {{ $scheme }} }
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 3
          readinessProbe:
            httpGet: { path: /readyz, port: http, scheme: {{ $scheme }} }
            periodSeconds: 5
            timeoutSeconds: 3
            failureThreshold: 2
          {{- end }}
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
            {{- if and (eq $root.Values.tls.mode "native") $c.public }}
            - name: tls
              mountPath: /etc/smsgw/tls
              readOnly: true
            {{- end }}
            {{- with $v.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        # The root filesystem is read-only; /tmp is the only place a service may write.
        - name: tmp
          emptyDir:
            sizeLimit: 64Mi
        {{- if and (eq $root.Values.tls.mode "native") $c.public }}
        - name: tls
          secret:
            secretName: {{ $root.Values.tls.existingSecret }}
        {{- end }}
        {{- with $v.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
{{- if $v.autoscaling.enabled }}
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "smsgw.componentLabels" . | nindent 4 }}
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
{{- end }}
{{- if $v.pdb.create }}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "smsgw.componentLabels" . | nindent 4 }}
spec:
  {{- if ne (toString $v.pdb.minAvailable) "" }}
  minAvailable: {{ $v.pdb.minAvailable }}
  {{- else }}
  maxUnavailable: {{ $v.pdb.maxUnavailable }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "smsgw.selectorLabels" . | nindent 6 }}
{{- end }}
{{- if $root.Values.networkPolicy.enabled }}
{{ include "smsgw.networkPolicy" . }}
{{- end }}
{{- if and $root.Values.metrics.enabled $root.Values.metrics.serviceMonitor.enabled }}
---
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ $fullname }}
  labels:
    {{- include "smsgw.componentLabels" . | nindent 4 }}
    {{- with $root.Values.metrics.serviceMonitor.labels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  selector:
    matchLabels:
      {{- include "smsgw.selectorLabels" . | nindent 6 }}
  endpoints:
    - port: metrics
      path: /metrics
      interval: {{ $root.Values.metrics.serviceMonitor.interval }}
{{- end }}
{{- end -}}

{{/* host:port of each dependency a service uses, as a YAML list. */}}
{{- define "smsgw.dependencyAddresses" -}}
{{- $c := fromYaml (include "smsgw.component" .) -}}
{{- $root := .root -}}
{{- $out := list -}}
{{- if has "postgres" $c.uses -}}
{{- $out = append $out (include "smsgw.database.address" $root) -}}
{{- end -}}
{{- if has "redis" $c.uses -}}
{{- $out = append $out (include "smsgw.redis.address" $root) -}}
{{- end -}}
{{- if has "nats" $c.uses -}}
{{- $out = append $out (include "smsgw.nats.address" $root) -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* Node, with no shell in the image: try each host:port of argv until it accepts a connection. */}}
{{- define "smsgw.waitScript" -}}
const net = require('node:net');
const open = (host, port) => new Promise((done) => {
  const s = net.connect({ host, port, timeout: 2000 });
  s.once('connect', () => { s.destroy(); done(true); });
  s.once('error', () => done(false));
  s.once('timeout', () => { s.destroy(); done(false); });
});
(async () => {
  for (const target of process.argv.slice(1)) {
    const at = target.lastIndexOf(':');
    while (!(await open(target.slice(0, at), Number(target.slice(at + 1))))) {
      console.log(`waiting for ${target}`);
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
})();
{{- end -}}

{{/* The settings every service reads the same way. */}}
{{- define "smsgw.commonEnv" -}}
{{- $root := .root -}}
{{- $c := fromYaml (include "smsgw.component" .) -}}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: LOG_LEVEL
  value: {{ $root.Values.logLevel | quote }}
- name: SMSGW_VERSION
  value: {{ $root.Chart.AppVersion | quote }}
- name: OTEL_RESOURCE_ATTRIBUTES
  value: "service.instance.id=$(POD_NAME),k8s.pod.name=$(POD_NAME),k8s.namespace.name={{ $root.Release.Namespace }},deployment.environment={{ $root.Release.Name }}"
{{- if $root.Values.telemetry.otlp.endpoint }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ $root.Values.telemetry.otlp.endpoint | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ $root.Values.telemetry.otlp.protocol | quote }}
- name: OTEL_TRACES_SAMPLER
  value: parentbased_traceidratio
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ $root.Values.telemetry.samplerRatio | quote }}
{{- end }}
{{- if $root.Values.metrics.enabled }}
- name: METRICS_PORT
  value: {{ $root.Values.metrics.port | quote }}
{{- end }}
{{- if eq $c.kind "grpc" }}
- name: GRPC_PORT
  value: {{ $c.port | quote }}
{{- else }}
- name: HTTP_PORT
  value: {{ $c.port | quote }}
{{- end }}
{{- if $c.public }}
- name: TLS_MODE
  value: {{ $root.Values.tls.mode | quote }}
{{- if eq $root.Values.tls.mode "native" }}
- name: TLS_CERT_FILE
  value: /etc/smsgw/tls/tls.crt
- name: TLS_KEY_FILE
  value: /etc/smsgw/tls/tls.key
{{- end }}
{{- end }}
{{- if has "postgres" $c.uses }}
- name: DATABASE_URL
  value: {{ include "smsgw.database.url" $root | quote }}
- name: DATABASE_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "smsgw.database.secretName" $root }}
      key: {{ include "smsgw.database.secretPasswordKey" $root }}
- name: DATABASE_POOL_MAX
  value: {{ $root.Values.database.poolMax | quote }}
{{- end }}
{{- if has "redis" $c.uses }}
- name: REDIS_URL
  value: {{ include "smsgw.redis.url" $root | quote }}
- name: REDIS_PREFIX
  value: {{ $root.Values.redisKeyPrefix | quote }}
{{- if include "smsgw.redis.authEnabled" $root }}
- name: REDIS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "smsgw.redis.secretName" $root }}
      key: {{ include "smsgw.redis.secretPasswordKey" $root }}
{{- end }}
{{- if and (not $root.Values.redis.enabled) $root.Values.externalRedis.username }}
- name: REDIS_USERNAME
  value: {{ $root.Values.externalRedis.username | quote }}
{{- end }}
{{- end }}
{{- if has "nats" $c.uses }}
- name: NATS_URL
  value: {{ include "smsgw.nats.url" $root | quote }}
- name: NATS_STREAM_REPLICAS
  value: {{ ternary 1 $root.Values.externalNats.streamReplicas $root.Values.nats.enabled | quote }}
{{- with include "smsgw.nats.user" $root }}
- name: NATS_USER
  value: {{ . | quote }}
- name: NATS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ include "smsgw.nats.secretName" $root }}
      key: {{ include "smsgw.nats.secretPasswordKey" $root }}
{{- end }}
{{- end }}
{{- range $c.calls }}
- name: {{ printf "%s_GRPC_ADDR" (. | upper | replace "-" "_") }}
  value: {{ include "smsgw.grpcAddress" (dict "root" $root "name" .) | quote }}
{{- end }}
{{- end -}}
