{{/*
A pod's `initContainers`: the one that waits for the service's Postgres, Redis and NATS; or
nothing when `waitForDependencies` is off or the service uses none of them.
Usage: {{- include "smsgw.initContainers" (dict "context" $ "component" "otp") | nindent 6 }}
*/}}
{{- define "smsgw.initContainers" -}}
{{- $root := .context -}}
{{- $deps := include "smsgw.dependencies.addresses" . | fromYamlArray -}}
{{- if and $root.Values.waitForDependencies $deps -}}
initContainers:
  # Waits until the dependencies accept connections, so a first install does not
  # crash-loop (and back off for minutes) while the bundled ones start.
  - name: wait-for-dependencies
    image: {{ include "smsgw.images.image" $root }}
    imagePullPolicy: {{ $root.Values.image.pullPolicy }}
    args:
      - -e
      - {{ include "smsgw.waitScript" . | quote }}
      {{- range $deps }}
      - {{ . | quote }}
      {{- end }}
    securityContext:
      {{- toYaml $root.Values.containerSecurityContext | nindent 6 }}
    resources:
      requests: { cpu: 10m, memory: 32Mi }
      limits: { memory: 96Mi }
{{- end -}}
{{- end -}}

{{/*
Node, with no shell in the image: try each host:port of argv until it accepts a connection.
e2e/test/image-build.test.ts runs it from the built image.
Usage: node -e {{ include "smsgw.waitScript" . | quote }} host:port ...
*/}}
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
