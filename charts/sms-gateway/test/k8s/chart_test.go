package charttest

import (
	"encoding/base64"
	"regexp"
	"sort"
	"strings"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// The three value sets the issue names, each in ci/.
var valueSets = []string{"default", "external", "ha"}

func TestWhenTheChartIsLintedStrictlyWithEachValueSetThenHelmFindsNothing(t *testing.T) {
	for _, set := range valueSets {
		t.Run(set, func(t *testing.T) {
			out, err := helm(t, "lint", "--strict", chartDir(), "--kube-version", kubeVersion, "--values", chartDir()+"/ci/"+set+"-values.yaml")
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out, "[WARNING]") || strings.Contains(out, "[ERROR]") {
				t.Fatalf("helm lint reports problems:\n%s", out)
			}
		})
	}
}

func TestWhenRenderedWithEachValueSetThenEveryObjectDecodesStrictlyAndEveryServiceHasItsObjects(t *testing.T) {
	for _, set := range valueSets {
		t.Run(set, func(t *testing.T) {
			r := render(t, set)
			for name := range services {
				full := fullname(name)
				if Find[*appsv1.Deployment](r, full) == nil {
					t.Errorf("%s: no Deployment %s", name, full)
				}
				if Find[*corev1.Service](r, full) == nil {
					t.Errorf("%s: no Service %s", name, full)
				}
				if sa := Find[*corev1.ServiceAccount](r, full); sa == nil {
					t.Errorf("%s: no ServiceAccount %s", name, full)
				} else if sa.AutomountServiceAccountToken == nil || *sa.AutomountServiceAccountToken {
					t.Errorf("%s: the ServiceAccount mounts its token, yet no service calls the Kubernetes API", name)
				}
				pdb := Find[*policyv1.PodDisruptionBudget](r, full)
				if pdb == nil {
					t.Errorf("%s: no PodDisruptionBudget", name)
				} else if pdb.Spec.Selector.MatchLabels["app.kubernetes.io/component"] != name {
					t.Errorf("%s: the PodDisruptionBudget selects %v", name, pdb.Spec.Selector.MatchLabels)
				}
			}
		})
	}
}

func TestWhenTheHighAvailabilitySetIsRenderedThenEveryServiceAutoscalesFromThreeAndKeepsTwoDuringDisruptions(t *testing.T) {
	r := render(t, "ha")
	for name := range services {
		full := fullname(name)
		hpa := Find[*autoscalingv2.HorizontalPodAutoscaler](r, full)
		if hpa == nil {
			t.Errorf("%s: no HorizontalPodAutoscaler", name)
			continue
		}
		if hpa.Spec.ScaleTargetRef.Kind != "Deployment" || hpa.Spec.ScaleTargetRef.Name != full {
			t.Errorf("%s: the autoscaler targets %s/%s", name, hpa.Spec.ScaleTargetRef.Kind, hpa.Spec.ScaleTargetRef.Name)
		}
		if hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas != 3 || hpa.Spec.MaxReplicas != 9 {
			t.Errorf("%s: the autoscaler runs %v to %d replicas", name, hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas)
		}
		if d := Find[*appsv1.Deployment](r, full); d.Spec.Replicas != nil {
			t.Errorf("%s: the Deployment fixes %d replicas although an autoscaler owns the count", name, *d.Spec.Replicas)
		}
		pdb := Find[*policyv1.PodDisruptionBudget](r, full)
		if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.IntValue() != 2 || pdb.Spec.MaxUnavailable != nil {
			t.Errorf("%s: the disruption budget is minAvailable=%v maxUnavailable=%v", name, pdb.Spec.MinAvailable, pdb.Spec.MaxUnavailable)
		}
	}
	// The defaults: no autoscaler, one replica, one pod may go.
	d := render(t, "default")
	if n := len(All[*autoscalingv2.HorizontalPodAutoscaler](d)); n != 0 {
		t.Errorf("the defaults create %d autoscalers", n)
	}
}

func TestWhenRenderedThenGrpcServicesHaveNativeGrpcProbesAndTheGatewayAndDashboardHttpProbes(t *testing.T) {
	r := render(t, "default")
	for name, port := range services {
		d := Find[*appsv1.Deployment](r, fullname(name))
		c := d.Spec.Template.Spec.Containers[0]
		if c.ReadinessProbe == nil || c.LivenessProbe == nil || c.StartupProbe == nil {
			t.Errorf("%s: a probe is missing (readiness %v, liveness %v, startup %v)", name, c.ReadinessProbe != nil, c.LivenessProbe != nil, c.StartupProbe != nil)
			continue
		}
		if name == "gateway" || name == "dashboard" {
			for probe, path := range map[*corev1.Probe]string{c.ReadinessProbe: "/readyz", c.LivenessProbe: "/healthz"} {
				if probe.HTTPGet == nil || probe.HTTPGet.Path != path || probe.HTTPGet.Port.StrVal != "http" || probe.HTTPGet.Scheme != corev1.URISchemeHTTP {
					t.Errorf("%s: expected an HTTP probe of %s on the http port, got %+v", name, path, probe.ProbeHandler)
				}
			}
			continue
		}
		if name == "smpp" {
			// SMPP over TLS is no HTTP: plain HTTP probes on the health port.
			for probe, path := range map[*corev1.Probe]string{c.ReadinessProbe: "/readyz", c.LivenessProbe: "/healthz"} {
				if probe.HTTPGet == nil || probe.HTTPGet.Path != path || probe.HTTPGet.Port.StrVal != "health" || probe.HTTPGet.Scheme != corev1.URISchemeHTTP {
					t.Errorf("%s: expected an HTTP probe of %s on the health port, got %+v", name, path, probe.ProbeHandler)
				}
			}
			if containerPort(c, "health") != 2776 {
				t.Errorf("%s: the health port is %d", name, containerPort(c, "health"))
			}
			continue
		}
		ready, live := c.ReadinessProbe.GRPC, c.LivenessProbe.GRPC
		if ready == nil || live == nil {
			t.Errorf("%s: readiness and liveness must be native gRPC probes, got %+v / %+v", name, c.ReadinessProbe.ProbeHandler, c.LivenessProbe.ProbeHandler)
			continue
		}
		// The gRPC port takes mutual TLS only, which the kubelet cannot speak: the probes ask the
		// plaintext health port, gRPC port + 100, which the container declares.
		if health := port + 100; ready.Port != health || live.Port != health || containerPort(c, "grpc-health") != health {
			t.Errorf("%s: probes on ports %d/%d, the health port is %d (declared %d)", name, ready.Port, live.Port, health, containerPort(c, "grpc-health"))
		}
		// Readiness asks for the whole server (""); liveness for the service that stays SERVING
		// while a dependency is down, so an outage never restarts every pod.
		if ready.Service != nil && *ready.Service != "" {
			t.Errorf("%s: readiness asks for %q", name, *ready.Service)
		}
		if live.Service == nil || *live.Service != "liveness" {
			t.Errorf("%s: liveness must ask for the 'liveness' health service", name)
		}
	}
	// In native TLS mode the HTTP probes speak HTTPS.
	native := render(t, "default", "--set", "tls.mode=native", "--set", "tls.existingSecret=smsgw-tls")
	c := Find[*appsv1.Deployment](native, fullname("gateway")).Spec.Template.Spec.Containers[0]
	if c.ReadinessProbe.HTTPGet.Scheme != corev1.URISchemeHTTPS {
		t.Errorf("native TLS: the gateway's readiness probe uses %s", c.ReadinessProbe.HTTPGet.Scheme)
	}
	if env(c, "TLS_CERT_FILE") != "/etc/smsgw/tls/tls.crt" || env(c, "TLS_MODE") != "native" {
		t.Errorf("native TLS: TLS_MODE=%q TLS_CERT_FILE=%q", env(c, "TLS_MODE"), env(c, "TLS_CERT_FILE"))
	}
}

func TestWhenRenderedWithEachValueSetThenEveryPodIsHardened(t *testing.T) {
	for _, set := range valueSets {
		t.Run(set, func(t *testing.T) {
			r := render(t, set)
			templates := r.PodTemplates()
			if len(templates) < len(services) {
				t.Fatalf("only %d workloads rendered", len(templates))
			}
			for owner, tpl := range templates {
				spec := tpl.Spec
				psc := spec.SecurityContext
				if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot {
					t.Errorf("%s: the pod may run as root", owner)
				}
				if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
					t.Errorf("%s: no RuntimeDefault seccomp profile", owner)
				}
				if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
					t.Errorf("%s: the pod mounts a service account token", owner)
				}
				all := append(append([]corev1.Container{}, spec.InitContainers...), spec.Containers...)
				for _, c := range all {
					where := owner + "/" + c.Name
					sc := c.SecurityContext
					switch {
					case sc == nil:
						t.Errorf("%s: no securityContext", where)
						continue
					case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
						t.Errorf("%s: privilege escalation allowed", where)
					case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
						t.Errorf("%s: writable root filesystem", where)
					case sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" || len(sc.Capabilities.Add) != 0:
						t.Errorf("%s: capabilities %+v, expected drop [ALL] and no add", where, sc.Capabilities)
					case sc.Privileged != nil && *sc.Privileged:
						t.Errorf("%s: privileged", where)
					}
					if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
						t.Errorf("%s: resources must request CPU and memory and limit memory, got %+v", where, c.Resources)
					}
				}
			}
		})
	}
}

func TestWhenRenderedThenPodsSpreadAndTerminateAfterTheirDrain(t *testing.T) {
	r := render(t, "default")
	for name := range services {
		spec := Find[*appsv1.Deployment](r, fullname(name)).Spec.Template.Spec
		keys := map[string]bool{}
		for _, c := range spec.TopologySpreadConstraints {
			if c.LabelSelector.MatchLabels["app.kubernetes.io/component"] != name {
				t.Errorf("%s: a spread constraint selects %v", name, c.LabelSelector.MatchLabels)
			}
			keys[c.TopologyKey] = true
		}
		if !keys["topology.kubernetes.io/zone"] || !keys["kubernetes.io/hostname"] {
			t.Errorf("%s: pods are not spread over zones and nodes: %v", name, keys)
		}
		c := spec.Containers[0]
		if c.Lifecycle == nil || c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil {
			t.Errorf("%s: no preStop sleep to leave the endpoints before SIGTERM", name)
			continue
		}
		// A service drains for at most 15 s after SIGTERM (runMain's limit).
		need := c.Lifecycle.PreStop.Sleep.Seconds + 15
		if spec.TerminationGracePeriodSeconds == nil || *spec.TerminationGracePeriodSeconds < need {
			t.Errorf("%s: grace period %v is shorter than the preStop sleep plus the 15 s drain (%d)", name, spec.TerminationGracePeriodSeconds, need)
		}
	}
	if _, err := helm(t, templateArgs("default", "--set", "gateway.terminationGracePeriodSeconds=10")...); err == nil || !strings.Contains(err.Error(), "gateway.terminationGracePeriodSeconds must cover") {
		t.Errorf("a grace period shorter than the drain was accepted: %v", err)
	}
}

func env(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

func envVar(c corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

func TestWhenRenderedThenServicesReachEachOtherAndTheirDependenciesAtTheRightAddresses(t *testing.T) {
	r := render(t, "default")
	gw := Find[*appsv1.Deployment](r, fullname("gateway")).Spec.Template.Spec.Containers[0]
	if got := env(gw, "MESSAGE_GRPC_ADDR"); got != "dns:///smsgw-sms-gateway-message.sms.svc.cluster.local:50052" {
		t.Errorf("gateway: MESSAGE_GRPC_ADDR=%q", got)
	}
	if svc := Find[*corev1.Service](r, fullname("message")); svc.Spec.ClusterIP != corev1.ClusterIPNone {
		t.Errorf("the message Service is not headless (%q), so clients could not balance over its replicas", svc.Spec.ClusterIP)
	}
	msg := Find[*appsv1.Deployment](r, fullname("message")).Spec.Template.Spec.Containers[0]
	if got := env(msg, "DATABASE_URL"); got != "postgresql://smsgw@smsgw-postgresql:5432/smsgw" {
		t.Errorf("message: DATABASE_URL=%q", got)
	}
	if v := envVar(msg, "DATABASE_PASSWORD"); v == nil || v.ValueFrom == nil || v.ValueFrom.SecretKeyRef == nil || v.ValueFrom.SecretKeyRef.Name != "smsgw-postgresql" {
		t.Errorf("message: DATABASE_PASSWORD does not come from the bundled PostgreSQL's Secret: %+v", v)
	}
	if got := env(msg, "NATS_URL"); got != "nats://smsgw-nats:4222" {
		t.Errorf("message: NATS_URL=%q", got)
	}

	ext := render(t, "external")
	for _, kind := range []string{"postgresql", "redis", "nats"} {
		for owner := range ext.PodTemplates() {
			if strings.Contains(owner, kind) {
				t.Errorf("external dependencies: the bundled %s is still deployed (%s)", kind, owner)
			}
		}
	}
	otp := Find[*appsv1.Deployment](ext, fullname("otp")).Spec.Template.Spec.Containers[0]
	if got := env(otp, "DATABASE_URL"); got != "postgresql://smsgw@pg.db.example.internal:5432/smsgw?sslmode=verify-full" {
		t.Errorf("otp: DATABASE_URL=%q", got)
	}
	if got := env(otp, "REDIS_URL"); got != "rediss://redis.cache.example.internal:6380" {
		t.Errorf("otp: REDIS_URL=%q", got)
	}
	for variable, secret := range map[string]string{"DATABASE_PASSWORD": "smsgw-db", "REDIS_PASSWORD": "smsgw-redis", "OTP_HASH_KEY": "smsgw-keys", "OTP_SEAL_KEY": "smsgw-keys"} {
		v := envVar(otp, variable)
		if v == nil || v.ValueFrom == nil || v.ValueFrom.SecretKeyRef == nil || v.ValueFrom.SecretKeyRef.Name != secret {
			t.Errorf("otp: %s does not come from the existing Secret %s: %+v", variable, secret, v)
		}
	}
	hub := Find[*appsv1.Deployment](ext, fullname("device-hub")).Spec.Template.Spec.Containers[0]
	if got := env(hub, "HUB_PUBLIC_URL"); got != "https://hub.sms.example.com" {
		t.Errorf("device-hub: HUB_PUBLIC_URL=%q", got)
	}
	if got := env(hub, "NATS_STREAM_REPLICAS"); got != "3" {
		t.Errorf("device-hub: NATS_STREAM_REPLICAS=%q on a NATS cluster", got)
	}
	// Every service that ensures the streams gives them the same budget, or each start would change it.
	for _, name := range []string{"device-hub", "message", "webhook", "scheduler"} {
		c := Find[*appsv1.Deployment](ext, fullname(name)).Spec.Template.Spec.Containers[0]
		if got := env(c, "NATS_STREAM_MAX_BYTES"); got != "1073741824" {
			t.Errorf("%s: NATS_STREAM_MAX_BYTES=%q, want the chart's natsStreams.maxBytes", name, got)
		}
	}
	if v := envVar(hub, "NATS_PASSWORD"); v == nil || v.ValueFrom.SecretKeyRef.Name != "smsgw-nats" || env(hub, "NATS_USER") != "smsgw" {
		t.Errorf("device-hub: NATS credentials %+v user %q", v, env(hub, "NATS_USER"))
	}
	if n := len(All[*corev1.Secret](ext)); n != 0 {
		t.Errorf("with every credential in an existing Secret, the chart still creates %d Secrets", n)
	}
}

func TestWhenRenderedWithTheExternalSetThenIngressesServeTlsWithCertManagerAndTheWebSocketTimeouts(t *testing.T) {
	r := render(t, "external")
	want := map[string]struct {
		host, service string
		port          int32
	}{
		"api":       {"api.sms.example.com", "gateway", 8443},
		"dashboard": {"dashboard.sms.example.com", "dashboard", 8445},
		"agent":     {"hub.sms.example.com", "device-hub", 8444},
	}
	for endpoint, w := range want {
		ing := Find[*networkingv1.Ingress](r, release+"-sms-gateway-"+endpoint)
		if ing == nil {
			t.Errorf("no Ingress for %s", endpoint)
			continue
		}
		if len(ing.Spec.TLS) != 1 || ing.Spec.TLS[0].Hosts[0] != w.host || ing.Spec.TLS[0].SecretName == "" {
			t.Errorf("%s: TLS %+v", endpoint, ing.Spec.TLS)
		}
		if ing.Annotations["cert-manager.io/cluster-issuer"] != "letsencrypt" {
			t.Errorf("%s: no cert-manager issuer annotation: %v", endpoint, ing.Annotations)
		}
		backend := ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service
		if ing.Spec.Rules[0].Host != w.host || backend.Name != fullname(w.service) || backend.Port.Number != w.port {
			t.Errorf("%s: routes %s to %s:%d", endpoint, ing.Spec.Rules[0].Host, backend.Name, backend.Port.Number)
		}
	}
	agent := Find[*networkingv1.Ingress](r, release+"-sms-gateway-agent")
	if agent.Annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"] != "3600" {
		t.Errorf("the phones' WebSocket Ingress keeps the controller's 60 s read timeout: %v", agent.Annotations)
	}
	if api := Find[*networkingv1.Ingress](r, release+"-sms-gateway-api"); api.Annotations["nginx.ingress.kubernetes.io/proxy-read-timeout"] != "" {
		t.Errorf("the API's Ingress has the WebSocket's hour-long timeout")
	}
}

// The calls of DESIGN.md's table of parts ("talks to"), the dashboard's own Redis (browser
// sessions) and NATS (live device events), the gateway's NATS (GET /v1/events/listen), the otp
// service's NATS (otp.fraud_suspected), the dashboard's OTP page and the smpp service (issue 40), which that table leaves out;
// README, "Network policies".
var designCalls = []string{
	"account -> postgresql:5432",
	"dashboard -> account:50051",
	"dashboard -> device-hub:50053",
	"dashboard -> message:50052",
	"dashboard -> nats:4222",
	"dashboard -> otp:50054",
	"dashboard -> redis:6379",
	"dashboard -> webhook:50056",
	"device-hub -> account:50051",
	"device-hub -> message:50052",
	"device-hub -> nats:4222",
	"device-hub -> postgresql:5432",
	"device-hub -> redis:6379",
	"gateway -> account:50051",
	"gateway -> device-hub:50053",
	"gateway -> message:50052",
	"gateway -> nats:4222",
	"gateway -> otp:50054",
	"gateway -> redis:6379",
	"message -> device-hub:50053",
	"message -> nats:4222",
	"message -> postgresql:5432",
	"message -> scheduler:50055",
	"otp -> message:50052",
	"otp -> nats:4222",
	"otp -> postgresql:5432",
	"otp -> redis:6379",
	"scheduler -> nats:4222",
	"scheduler -> postgresql:5432",
	"smpp -> account:50051",
	"smpp -> device-hub:50053",
	"smpp -> message:50052",
	"smpp -> nats:4222",
	"smpp -> postgresql:5432",
	"smpp -> redis:6379",
	"webhook -> account:50051",
	"webhook -> nats:4222",
	"webhook -> postgresql:5432",
	"webhook -> scheduler:50055",
}

func TestWhenNetworkPoliciesAreOnThenExactlyTheCallsOfTheDesignAreAllowed(t *testing.T) {
	r := render(t, "ha")
	if n := len(All[*networkingv1.NetworkPolicy](r)); n < len(services) {
		t.Fatalf("only %d NetworkPolicies", n)
	}
	got := connections(r)
	if strings.Join(got, "\n") != strings.Join(designCalls, "\n") {
		t.Errorf("allowed connections differ from DESIGN.md's calls\n%s", diff(designCalls, got))
	}
	// Without policies everything is open: the check above is not vacuous.
	if open := connections(render(t, "default", "--set", "networkPolicy.enabled=false,postgresql.networkPolicy.enabled=false,redis.networkPolicy.enabled=false,nats.networkPolicy.enabled=false")); len(open) <= len(designCalls) {
		t.Errorf("without NetworkPolicies only %d connections are open", len(open))
	}
	for _, np := range All[*networkingv1.NetworkPolicy](r) {
		if np.Labels["app.kubernetes.io/name"] != "sms-gateway" {
			continue
		}
		component := np.Labels["app.kubernetes.io/component"]
		var internet bool
		for _, rule := range np.Spec.Egress {
			for _, peer := range rule.To {
				if peer.IPBlock != nil && peer.IPBlock.CIDR == "0.0.0.0/0" {
					internet = true
					if !contains(peer.IPBlock.Except, "10.0.0.0/8") || !contains(peer.IPBlock.Except, "169.254.0.0/16") {
						t.Errorf("%s: the internet rule does not exclude private and link-local ranges: %v", component, peer.IPBlock.Except)
					}
				}
			}
		}
		if internet != (component == "webhook") {
			t.Errorf("%s: reaches the internet = %v; only the webhook service delivers outside", component, internet)
		}
	}
}

func TestWhenRenderedWithTheDefaultsThenNetworkPoliciesIsolateEveryPodAndMetricsAreClosedToOutsiders(t *testing.T) {
	r := render(t, "default")
	if got := connections(r); strings.Join(got, "\n") != strings.Join(designCalls, "\n") {
		t.Errorf("with the default values the allowed connections differ from the design's calls\n%s", diff(designCalls, got))
	}
	policies := All[*networkingv1.NetworkPolicy](r)
	covered := map[string]bool{}
	for _, np := range policies {
		covered[np.Name] = true
	}
	var wanted []string
	for name := range services {
		wanted = append(wanted, fullname(name))
	}
	for _, dep := range []string{"postgresql", "redis", "nats"} {
		wanted = append(wanted, release+"-"+dep)
	}
	for _, name := range wanted {
		if !covered[name] {
			t.Errorf("no NetworkPolicy %s with the default values", name)
		}
	}
	// An outside scraper (or any pod of another release) reaches no service's /metrics by default,
	// and reaches it once named in networkPolicy.metricsFrom.
	scraper := pod{name: "prometheus", labels: map[string]string{"app": "prometheus"}}
	metricsPort := int32(9464)
	open := render(t, "default", "--set", "networkPolicy.metricsFrom[0].podSelector.matchLabels.app=prometheus")
	for _, p := range podsOf(r) {
		if _, ok := p.ports[metricsPort]; !ok {
			continue
		}
		if allowed(policies, scraper, p, metricsPort) {
			t.Errorf("%s: /metrics is reachable from a pod outside the release by default", p.name)
		}
		if !allowed(All[*networkingv1.NetworkPolicy](open), scraper, p, metricsPort) {
			t.Errorf("%s: /metrics stays closed to the scraper named in networkPolicy.metricsFrom", p.name)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func diff(want, got []string) string {
	w, g := map[string]bool{}, map[string]bool{}
	for _, x := range want {
		w[x] = true
	}
	for _, x := range got {
		g[x] = true
	}
	var lines []string
	for _, x := range want {
		if !g[x] {
			lines = append(lines, "  missing: "+x)
		}
	}
	for _, x := range got {
		if !w[x] {
			lines = append(lines, "  extra:   "+x)
		}
	}
	return strings.Join(lines, "\n")
}

var secretName = regexp.MustCompile(`(?i)(PASSWORD|SECRET|_KEY$|TOKEN|SMTP_URL)`)

func TestWhenSecretsAreGivenAsValuesThenTheyAppearOnlyInSecretsNeverInConfigMapsOrPlainEnv(t *testing.T) {
	given := map[string]string{
		"secrets.otpHashKey":        "aGFzaC1rZXktdGhhdC1pcy1ub3QtcmFuZG9tLTEyMzQ1Njc=",
		"secrets.otpSealKey":        "c2VhbC1rZXktdGhhdC1pcy1ub3QtcmFuZG9tLTEyMzQ1Njc=",
		"secrets.smtpUrl":           "smtps://alerts:mail-Pa55@mail.example.com:465",
		"externalDatabase.password": "db-Pa55-w0rd",
		"externalRedis.password":    "redis-Pa55-w0rd",
		"externalNats.password":     "nats-Pa55-w0rd",
	}
	args := []string{"--set", "postgresql.enabled=false,externalDatabase.host=pg,redis.enabled=false,externalRedis.host=redis,nats.enabled=false,externalNats.host=nats,externalNats.user=smsgw"}
	for k, v := range given {
		args = append(args, "--set-string", k+"="+v)
	}
	r := render(t, "", args...)
	inSecrets := map[string]bool{}
	for _, s := range All[*corev1.Secret](r) {
		for _, data := range s.Data {
			inSecrets[string(data)] = true
		}
	}
	for k, v := range given {
		if !inSecrets[v] {
			t.Errorf("%s is not in any Secret", k)
		}
	}
	for _, cm := range All[*corev1.ConfigMap](r) {
		for key, data := range cm.Data {
			for k, v := range given {
				if strings.Contains(data, v) {
					t.Errorf("ConfigMap %s (%s) holds %s", cm.Name, key, k)
				}
			}
		}
	}
	for owner, tpl := range r.PodTemplates() {
		for _, c := range append(tpl.Spec.InitContainers, tpl.Spec.Containers...) {
			for _, e := range c.Env {
				for k, v := range given {
					if strings.Contains(e.Value, v) {
						t.Errorf("%s/%s: %s carries %s in plain text", owner, c.Name, e.Name, k)
					}
				}
				if secretName.MatchString(e.Name) && (e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
					t.Errorf("%s/%s: %s is not read from a Secret", owner, c.Name, e.Name)
				}
			}
		}
	}
}

func TestWhenNoOtpKeysAreGivenThenAHookJobMakesThemInTheClusterAndEveryRenderingIsTheSame(t *testing.T) {
	secret := release + "-sms-gateway-secrets"
	job := release + "-sms-gateway-secrets-init"
	first, err := helm(t, templateArgs("default")...)
	if err != nil {
		t.Fatal(err)
	}
	r := render(t, "default")
	// No key is rendered: nothing random for helm template, Argo CD or Flux to redraw.
	for _, s := range All[*corev1.Secret](r) {
		if _, ok := s.Data["otp-hash-key"]; ok {
			t.Errorf("Secret %s renders the OTP hash key", s.Name)
		}
	}
	if strings.Contains(first, "otp-hash-key:") {
		t.Error("a rendered object holds otp-hash-key data")
	}
	// The pods read the keys from the Secret the Job makes.
	otp := Find[*appsv1.Deployment](r, fullname("otp")).Spec.Template.Spec.Containers[0]
	for _, name := range []string{"OTP_HASH_KEY", "OTP_SEAL_KEY"} {
		if v := envVar(otp, name); v == nil || v.ValueFrom == nil || v.ValueFrom.SecretKeyRef == nil || v.ValueFrom.SecretKeyRef.Name != secret {
			t.Errorf("otp: %s is not read from %s: %+v", name, secret, v)
		}
	}
	j := Find[*batchv1.Job](r, job)
	if j == nil {
		t.Fatalf("no Job %s", job)
	}
	if j.Annotations["helm.sh/hook"] != "pre-install,pre-upgrade" {
		t.Errorf("the secrets Job is not a pre-install/pre-upgrade hook: %v", j.Annotations)
	}
	c := j.Spec.Template.Spec.Containers[0]
	if want := []string{"tools/admin/dist/cli.js", "ensure-secret", "--name", secret, "--keys", "otp-hash-key,otp-seal-key,hub-tls-ticket-keys:48"}; strings.Join(c.Args[:6], " ") != strings.Join(want, " ") {
		t.Errorf("the secrets Job runs %v", c.Args)
	}
	// The hub's ticket keys rotate once 7 days old (secrets.hubTlsTicketKeysRotationDays); 0: never.
	if !strings.Contains(strings.Join(c.Args, " "), "--rotate hub-tls-ticket-keys=7") {
		t.Errorf("the secrets Job does not rotate the ticket keys: %v", c.Args)
	}
	never := Find[*batchv1.Job](render(t, "default", "--set", "secrets.hubTlsTicketKeysRotationDays=0"), job).Spec.Template.Spec.Containers[0]
	if strings.Contains(strings.Join(never.Args, " "), "--rotate") {
		t.Errorf("with rotation days 0 the secrets Job still rotates: %v", never.Args)
	}
	if c.SecurityContext == nil || c.SecurityContext.ReadOnlyRootFilesystem == nil || !*c.SecurityContext.ReadOnlyRootFilesystem || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
		t.Errorf("the secrets Job's container is not hardened: %+v", c.SecurityContext)
	}
	// Its service account may read and patch that one Secret, create Secrets, and nothing else.
	role := Find[*rbacv1.Role](r, job)
	if role == nil || len(role.Rules) != 2 {
		t.Fatalf("the secrets Job's Role: %+v", role)
	}
	for _, rule := range role.Rules {
		if strings.Join(rule.Resources, ",") != "secrets" {
			t.Errorf("the Role reaches %v", rule.Resources)
		}
		if strings.Join(rule.Verbs, ",") == "get,patch" && strings.Join(rule.ResourceNames, ",") != secret {
			t.Errorf("get and patch are not limited to %s: %v", secret, rule.ResourceNames)
		}
		if strings.Join(rule.Verbs, ",") != "get,patch" && strings.Join(rule.Verbs, ",") != "create" {
			t.Errorf("the Role allows %v", rule.Verbs)
		}
	}
	if b := Find[*rbacv1.RoleBinding](r, job); b == nil || b.Subjects[0].Name != job || b.RoleRef.Name != job {
		t.Errorf("the secrets Job's RoleBinding: %+v", b)
	}
	// Every rendering is the same in what concerns the OTP keys (the bundled databases' generated
	// passwords aside, which the subcharts still keep with lookup).
	again, err := helm(t, templateArgs("default")...)
	if err != nil {
		t.Fatal(err)
	}
	if stripDependencySecrets(first) != stripDependencySecrets(again) {
		t.Error("two renderings of the defaults differ beyond the bundled dependencies' passwords")
	}
	for _, s := range All[*corev1.Secret](r) {
		if _, ok := s.Data["hub-tls-ticket-keys"]; ok {
			t.Errorf("Secret %s renders the hub's ticket keys", s.Name)
		}
	}
	// Given keys are rendered as given, and no Job runs; one key alone is refused.
	given := render(t, "default", "--set-string", "secrets.otpHashKey=aGFzaA==,secrets.otpSealKey=c2VhbA==")
	if s := Find[*corev1.Secret](given, secret); s == nil || string(s.Data["otp-hash-key"]) != "aGFzaA==" {
		t.Errorf("the given keys are not rendered: %+v", s)
	}
	if Find[*batchv1.Job](given, job) != nil {
		t.Error("a secrets Job runs although the keys are given")
	}
	if _, err := helm(t, templateArgs("default", "--set-string", "secrets.otpHashKey=aGFzaA==")...); err == nil || !strings.Contains(err.Error(), "set both or neither") {
		t.Errorf("one OTP key alone: %v", err)
	}
}

func TestWhenTheHubEndsTlsThenEveryReplicaReadsTheSameTicketKeysFromTheServicesSecret(t *testing.T) {
	secret := release + "-sms-gateway-secrets"
	const file = "/etc/smsgw/tls-tickets/ticket-keys"
	native := []string{"--set", "tls.mode=native", "--set", "tls.existingSecret=smsgw-tls"}
	// ticketKeysOf checks the device-hub's variable, read-only mount and volume; returns the volume's Secret.
	ticketKeysOf := func(t *testing.T, r *Rendered) string {
		t.Helper()
		spec := Find[*appsv1.Deployment](r, fullname("device-hub")).Spec.Template.Spec
		hub := spec.Containers[0]
		if got := env(hub, "HUB_TLS_TICKET_KEYS_FILE"); got != file {
			t.Errorf("device-hub: HUB_TLS_TICKET_KEYS_FILE=%q, want %q", got, file)
		}
		if m := mountOf(hub, "tls-tickets"); m == nil || m.MountPath != "/etc/smsgw/tls-tickets" || !m.ReadOnly {
			t.Errorf("device-hub: the ticket keys are not mounted read-only at /etc/smsgw/tls-tickets: %+v", m)
		}
		v := volumeOf(spec, "tls-tickets")
		if v == nil || v.Secret == nil || len(v.Secret.Items) != 1 || v.Secret.Items[0].Key != "hub-tls-ticket-keys" || v.Secret.Items[0].Path != "ticket-keys" {
			t.Fatalf("device-hub: the ticket keys' volume: %+v", v)
		}
		// No other service sees them.
		for owner, tpl := range r.PodTemplates() {
			if owner != "Deployment/"+fullname("device-hub") && volumeOf(tpl.Spec, "tls-tickets") != nil {
				t.Errorf("%s mounts the hub's ticket keys", owner)
			}
		}
		return v.Secret.SecretName
	}

	// Behind an Ingress (the default) the hub ends no TLS: no keys are mounted, but the Job still makes them.
	proxy := render(t, "default")
	hub := Find[*appsv1.Deployment](proxy, fullname("device-hub")).Spec.Template.Spec
	if envVar(hub.Containers[0], "HUB_TLS_TICKET_KEYS_FILE") != nil || volumeOf(hub, "tls-tickets") != nil {
		t.Error("in proxy mode the device-hub reads ticket keys")
	}

	// Generated: the secrets Job's Secret, whose keys no rendering holds (see the test above).
	generated := render(t, "default", native...)
	if got := ticketKeysOf(t, generated); got != secret {
		t.Errorf("the ticket keys come from %s, want the Job's %s", got, secret)
	}
	if j := Find[*batchv1.Job](generated, secret+"-init"); j == nil || !strings.Contains(strings.Join(j.Spec.Template.Spec.Containers[0].Args, " "), "hub-tls-ticket-keys:48") {
		t.Error("the secrets Job does not make the 48 bytes of hub-tls-ticket-keys")
	}

	// The operator's own Secret.
	if got := ticketKeysOf(t, render(t, "default", append(native, "--set", "secrets.existingSecret=smsgw-keys")...)); got != "smsgw-keys" {
		t.Errorf("with secrets.existingSecret the ticket keys come from %s", got)
	}

	// Given as a value with the OTP keys: rendered into the services' Secret.
	keys := base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef0123456789abcdef"))
	otp := "secrets.otpHashKey=aGFzaA==,secrets.otpSealKey=c2VhbA=="
	given := render(t, "default", append(native, "--set-string", otp+",secrets.hubTlsTicketKeys="+keys)...)
	if got := ticketKeysOf(t, given); got != secret {
		t.Errorf("with given keys the ticket keys come from %s", got)
	}
	if s := Find[*corev1.Secret](given, secret); s == nil || string(s.Data["hub-tls-ticket-keys"]) != keys {
		t.Errorf("the given ticket keys are not in %s", secret)
	}

	// The OTP keys given without ticket keys: the optional key leaves no file, and the hub runs
	// without shared keys (it warns at start); the pod never waits for a key its Secret lacks.
	withoutKeys := render(t, "default", append(native, "--set-string", otp)...)
	ticketKeysOf(t, withoutKeys)
	if v := volumeOf(Find[*appsv1.Deployment](withoutKeys, fullname("device-hub")).Spec.Template.Spec, "tls-tickets"); v.Secret.Optional == nil || !*v.Secret.Optional {
		t.Error("the ticket keys' volume is not optional: a Secret without the key would keep the device-hub from starting")
	}
	if s := Find[*corev1.Secret](withoutKeys, secret); s == nil || s.Data["hub-tls-ticket-keys"] != nil {
		t.Errorf("%s holds ticket keys that were not given", secret)
	}

	// Refused: ticket keys without the OTP keys (no Secret to go to), another length.
	for values, want := range map[string]string{
		"secrets.hubTlsTicketKeys=" + keys:         "set without the OTP keys",
		otp + ",secrets.hubTlsTicketKeys=aGFzaA==": "base64 of 48 random bytes",
	} {
		if _, err := helm(t, templateArgs("default", append(native, "--set-string", values)...)...); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want a refusal saying %q, got %v", values, want, err)
		}
	}
}

// stripDependencySecrets drops the data lines of the bundled dependencies' Secrets.
func stripDependencySecrets(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "postgres-password:") || strings.HasPrefix(trimmed, "password:") || strings.HasPrefix(trimmed, "redis-password:") || strings.HasPrefix(trimmed, "nats-password:") {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "\n")
}

func TestWhenAValueIsMistypedThenTheSchemaRefusesTheInstall(t *testing.T) {
	cases := map[string]string{
		"a misspelt key":         "gatway.replicaCount=2",
		"a misspelt nested key":  "gateway.autoscaling.enable=true",
		"a string for a number":  "gateway.replicaCount=two",
		"a value out of its set": "tls.mode=passthrough",
		"a negative count":       "message.replicaCount=-1",
	}
	schemaRefuses(t, cases)
}

func TestWhenDependenciesAreBothOrNeitherBundledAndExternalThenValidationRefusesThem(t *testing.T) {
	cases := map[string]struct{ set, message string }{
		"postgres both":     {"externalDatabase.host=pg,externalDatabase.password=x", "postgresql.enabled and externalDatabase.host are both set"},
		"postgres neither":  {"postgresql.enabled=false", "no database"},
		"redis both":        {"externalRedis.host=redis", "redis.enabled and externalRedis.host are both set"},
		"redis neither":     {"redis.enabled=false", "no Redis"},
		"nats both":         {"externalNats.host=nats", "nats.enabled and externalNats.host are both set"},
		"nats neither":      {"nats.enabled=false", "no NATS"},
		"no db password":    {"postgresql.enabled=false,externalDatabase.host=pg", "externalDatabase needs a password"},
		"native, no cert":   {"tls.mode=native", "tls.mode=native needs tls.existingSecret"},
		"unscrapable":       {"metrics.serviceMonitor.enabled=true", "set networkPolicy.metricsFrom"},
		"hpa min above max": {"gateway.autoscaling.enabled=true,gateway.autoscaling.minReplicas=5,gateway.autoscaling.maxReplicas=2", "gateway.autoscaling.minReplicas is above maxReplicas"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := helm(t, templateArgs("default", "--set", c.set)...)
			if err == nil || !strings.Contains(err.Error(), c.message) {
				t.Fatalf("--set %s: expected the refusal %q, got %v", c.set, c.message, err)
			}
		})
	}
}

func TestWhenObservabilityIsOnThenDashboardsAlertsAndScrapeTargetsAreShipped(t *testing.T) {
	r := render(t, "external")
	dash := Find[*corev1.ConfigMap](r, release+"-sms-gateway-grafana-dashboard")
	if dash == nil || dash.Labels["grafana_dashboard"] != "1" || !strings.Contains(dash.Data["sms-gateway.json"], `"panels"`) {
		t.Fatalf("no Grafana dashboard ConfigMap for the sidecar: %+v", dash)
	}
	rule := Find[*monitoringv1.PrometheusRule](r, release+"-sms-gateway")
	if rule == nil {
		t.Fatal("no PrometheusRule")
	}
	var alerts []string
	for _, g := range rule.Spec.Groups {
		for _, a := range g.Rules {
			if a.Alert != "" {
				alerts = append(alerts, a.Alert)
			}
		}
	}
	if len(alerts) < 8 {
		t.Errorf("the PrometheusRule holds %d alerts: %v", len(alerts), alerts)
	}
	monitors := All[*monitoringv1.ServiceMonitor](r)
	var covered []string
	for _, m := range monitors {
		covered = append(covered, m.Spec.Selector.MatchLabels["app.kubernetes.io/component"])
		if len(m.Spec.Endpoints) != 1 || m.Spec.Endpoints[0].Port != "metrics" {
			t.Errorf("ServiceMonitor %s scrapes %+v", m.Name, m.Spec.Endpoints)
		}
	}
	sort.Strings(covered)
	if len(covered) != len(services) {
		t.Errorf("ServiceMonitors cover %v", covered)
	}
	gw := Find[*appsv1.Deployment](r, fullname("gateway")).Spec.Template.Spec.Containers[0]
	if env(gw, "OTEL_EXPORTER_OTLP_ENDPOINT") != "http://otel-collector.observability.svc:4317" || env(gw, "OTEL_TRACES_SAMPLER") != "parentbased_traceidratio" || env(gw, "METRICS_PORT") != "9464" {
		t.Errorf("gateway telemetry env: endpoint %q sampler %q metrics %q", env(gw, "OTEL_EXPORTER_OTLP_ENDPOINT"), env(gw, "OTEL_TRACES_SAMPLER"), env(gw, "METRICS_PORT"))
	}
}
