{{/*
The services: their values key, ports, what they use and whom they call, as in DESIGN.md's table
of parts. The env, the probes and the NetworkPolicies are all derived from this one table.
  kind: grpc (gRPC probes), http (HTTP probes on /healthz and /readyz), or smpp (SMPP over TLS on
    `port`, plain HTTP /healthz and /readyz on `healthPort`)
  healthPort: the gRPC services' plaintext health port (GRPC_HEALTH_PORT): the probes' port, since
    `port` takes mutual TLS only and the kubelet's gRPC probes cannot speak TLS
  public: the port an Ingress routes to
  optional: dependencies the service starts and serves without (not waited for at start-up)
Usage: {{ $all := fromYaml (include "smsgw.components" $) }}
*/}}
{{- define "smsgw.components" -}}
account:
  key: account
  kind: grpc
  port: 50051
  healthPort: 50151
  uses: [postgres]
  calls: []
message:
  key: message
  kind: grpc
  port: 50052
  healthPort: 50152
  uses: [postgres, nats]
  # device-hub: whether a device a send names is its client's (OwnedDevices, once per device).
  calls: [scheduler, device-hub]
device-hub:
  key: deviceHub
  kind: grpc
  port: 50053
  healthPort: 50153
  public: 8444
  uses: [postgres, redis, nats]
  calls: [message, account]
otp:
  key: otp
  kind: grpc
  port: 50054
  healthPort: 50154
  # NATS for the pumping guard's otp.fraud_suspected events only.
  uses: [postgres, redis, nats]
  calls: [message]
scheduler:
  key: scheduler
  kind: grpc
  port: 50055
  healthPort: 50155
  uses: [postgres, nats]
  calls: []
webhook:
  key: webhook
  kind: grpc
  port: 50056
  healthPort: 50156
  uses: [postgres, nats, smtp, internet]
  calls: [account, scheduler]
gateway:
  key: gateway
  kind: http
  port: 8443
  public: 8443
  # NATS for GET /v1/events/listen only: sends never wait for it.
  uses: [redis, nats]
  optional: [nats]
  calls: [account, message, device-hub, otp]
smpp:
  key: smpp
  kind: smpp
  port: 3550
  healthPort: 2776
  public: 3550
  uses: [postgres, redis, nats]
  calls: [account, message, device-hub]
dashboard:
  key: dashboard
  kind: http
  port: 8445
  public: 8445
  uses: [redis, nats]
  calls: [account, device-hub, message, webhook, otp]
{{- end -}}

{{/*
One service's row of the table, with its `name` and its `values` (the service's block of
values.yaml). Fails on a service the table does not hold.
Usage: {{ $c := fromYaml (include "smsgw.component.facts" (dict "context" $ "component" "otp")) }}
*/}}
{{- define "smsgw.component.facts" -}}
{{- $c := get (fromYaml (include "smsgw.components" .context)) .component -}}
{{- if not $c -}}{{- fail (printf "unknown service %q" .component) -}}{{- end -}}
{{- toYaml (merge (dict "name" .component "values" (get .context.Values $c.key)) $c) -}}
{{- end -}}
