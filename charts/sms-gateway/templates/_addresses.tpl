{{/*
The address a client dials to call one gRPC service: dns:/// of the headless Service, so calls
spread over every replica (host:port when `grpc.clientSideBalancing` is off).
Usage: {{ include "smsgw.component.grpcAddress" (dict "context" $ "component" "message") }}
*/}}
{{- define "smsgw.component.grpcAddress" -}}
{{- $c := fromYaml (include "smsgw.component.facts" .) -}}
{{- $host := printf "%s.%s.svc.%s" (include "smsgw.component.fullname" .) .context.Release.Namespace .context.Values.clusterDomain -}}
{{- if .context.Values.grpc.clientSideBalancing -}}
{{- printf "dns:///%s:%v" $host $c.port -}}
{{- else -}}
{{- printf "%s:%v" $host $c.port -}}
{{- end -}}
{{- end -}}

{{/*
The public URL phones reach the hub at (`deviceHub.publicUrl`, else the agent Ingress's host), or
nothing when phones cannot reach it.
Usage: {{ include "smsgw.deviceHub.publicUrl" $ }}
*/}}
{{- define "smsgw.deviceHub.publicUrl" -}}
{{- if .Values.deviceHub.publicUrl -}}
{{- .Values.deviceHub.publicUrl -}}
{{- else if .Values.ingress.enabled -}}
{{- printf "https://%s" .Values.ingress.agent.host -}}
{{- end -}}
{{- end -}}

{{/*
host:port of each dependency (Postgres, Redis, NATS) one service needs to start, as a YAML list
(its `optional` ones left out).
Usage: {{ $deps := include "smsgw.dependencies.addresses" (dict "context" $ "component" "otp") | fromYamlArray }}
*/}}
{{- define "smsgw.dependencies.addresses" -}}
{{- $c := fromYaml (include "smsgw.component.facts" .) -}}
{{- $out := list -}}
{{- if has "postgres" $c.uses -}}
{{- $out = append $out (include "smsgw.database.address" .context) -}}
{{- end -}}
{{- if has "redis" $c.uses -}}
{{- $out = append $out (include "smsgw.redis.address" .context) -}}
{{- end -}}
{{- if and (has "nats" $c.uses) (not (has "nats" (default list $c.optional))) -}}
{{- $out = append $out (include "smsgw.nats.address" .context) -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/*
The port of a URL, or its scheme's default (443 for https, else 80).
Usage: {{ include "smsgw.urlPort" "http://otel-collector.observability:4317" }}
*/}}
{{- define "smsgw.urlPort" -}}
{{- $u := urlParse . -}}
{{- $hostPort := splitList ":" $u.host -}}
{{- if gt (len $hostPort) 1 -}}
{{- last $hostPort -}}
{{- else -}}
{{- ternary 443 80 (eq $u.scheme "https") -}}
{{- end -}}
{{- end -}}
