package charttest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The bundled dependencies, as the parent chart's services see them.
type dependency struct {
	name      string // chart name and app.kubernetes.io/name
	port      int32  // the port the services dial
	uid, gid  int64  // the image's user
	urlEnv    string // the services' variable holding the address
	client    string // a service that uses the dependency
	nonClient string // a service that does not
	password  string // the services' variable holding the password
	secretKey string // its key in the generated Secret
}

var dependencies = []dependency{
	{"postgresql", 5432, 70, 70, "DATABASE_URL", "account", "gateway", "DATABASE_PASSWORD", "password"},
	{"redis", 6379, 999, 1000, "REDIS_URL", "gateway", "scheduler", "REDIS_PASSWORD", "redis-password"},
	{"nats", 4222, 1000, 1000, "NATS_URL", "message", "account", "NATS_PASSWORD", "nats-password"},
}

func (d dependency) fullname() string { return release + "-" + d.name }

func (d dependency) statefulSet(t *testing.T, r *Rendered) *appsv1.StatefulSet {
	t.Helper()
	s := Find[*appsv1.StatefulSet](r, d.fullname())
	if s == nil {
		t.Fatalf("%s: no StatefulSet %s", d.name, d.fullname())
	}
	return s
}

func TestWhenRenderedWithTheDefaultsThenEachDependencyIsOneStatefulSetOnAClaimBehindTheServiceTheServicesDial(t *testing.T) {
	r := render(t, "default")
	for _, d := range dependencies {
		t.Run(d.name, func(t *testing.T) {
			s := d.statefulSet(t, r)
			if s.Spec.Replicas == nil || *s.Spec.Replicas != 1 {
				t.Errorf("replicas %v, expected 1", s.Spec.Replicas)
			}
			pod := s.Spec.Template
			if pod.Labels["app.kubernetes.io/name"] != d.name || pod.Labels["app.kubernetes.io/instance"] != release {
				t.Errorf("pod labels %v do not say name=%s instance=%s, which the services' NetworkPolicies select", pod.Labels, d.name, release)
			}
			if len(s.Spec.VolumeClaimTemplates) != 1 {
				t.Fatalf("%d claim templates", len(s.Spec.VolumeClaimTemplates))
			}
			claim := s.Spec.VolumeClaimTemplates[0]
			if claim.Spec.Resources.Requests.Storage().IsZero() || len(claim.Spec.AccessModes) != 1 || claim.Spec.AccessModes[0] != corev1.ReadWriteOnce {
				t.Errorf("claim %s asks for %v, %v", claim.Name, claim.Spec.Resources.Requests, claim.Spec.AccessModes)
			}
			if mountOf(pod.Spec.Containers[0], claim.Name) == nil {
				t.Errorf("the container does not mount the claim %s", claim.Name)
			}
			if volumeOf(pod.Spec, claim.Name) != nil {
				t.Errorf("a pod volume shadows the claim %s", claim.Name)
			}
			if h := Find[*corev1.Service](r, s.Spec.ServiceName); h == nil || h.Spec.ClusterIP != corev1.ClusterIPNone {
				t.Errorf("the governing Service %q is missing or not headless", s.Spec.ServiceName)
			}

			// The Service the parent's variable names, on the port it names, reaching the pod.
			svc := Find[*corev1.Service](r, d.fullname())
			if svc == nil {
				t.Fatalf("no Service %s", d.fullname())
			}
			if svc.Spec.Type != corev1.ServiceTypeClusterIP || svc.Spec.ClusterIP == corev1.ClusterIPNone {
				t.Errorf("Service type %s clusterIP %q: the services need one stable address", svc.Spec.Type, svc.Spec.ClusterIP)
			}
			if !selects(&metav1.LabelSelector{MatchLabels: svc.Spec.Selector}, pod.Labels) || !selects(s.Spec.Selector, pod.Labels) {
				t.Errorf("the Service (%v) or the StatefulSet (%v) does not select the pod (%v)", svc.Spec.Selector, s.Spec.Selector.MatchLabels, pod.Labels)
			}
			var target *corev1.ServicePort
			for i := range svc.Spec.Ports {
				if svc.Spec.Ports[i].Port == d.port {
					target = &svc.Spec.Ports[i]
				}
			}
			if target == nil {
				t.Fatalf("the Service has no port %d", d.port)
			}
			if got := containerPort(pod.Spec.Containers[0], target.TargetPort.String()); got != d.port {
				t.Errorf("the Service's port %d targets %q, which is container port %d", d.port, target.TargetPort.String(), got)
			}
			c := Find[*appsv1.Deployment](r, fullname(d.client)).Spec.Template.Spec.Containers[0]
			u, err := url.Parse(env(c, d.urlEnv))
			if err != nil || u.Host != fmt.Sprintf("%s:%d", svc.Name, d.port) {
				t.Errorf("%s dials %s=%q, the Service is %s:%d", d.client, d.urlEnv, env(c, d.urlEnv), svc.Name, d.port)
			}
		})
	}

	off := render(t, "default", "--set", "postgresql.persistence.enabled=false,redis.persistence.enabled=false,nats.persistence.enabled=false")
	for _, d := range dependencies {
		s := d.statefulSet(t, off)
		if len(s.Spec.VolumeClaimTemplates) != 0 {
			t.Errorf("%s: persistence off, yet %d claim templates", d.name, len(s.Spec.VolumeClaimTemplates))
		}
		if v := volumeOf(s.Spec.Template.Spec, "data"); v == nil || v.EmptyDir == nil {
			t.Errorf("%s: persistence off, the data volume is %+v instead of an emptyDir", d.name, v)
		}
	}
}

var alnum32 = regexp.MustCompile(`^[A-Za-z0-9]{32}$`)

func TestWhenPasswordsAreGeneratedThenEveryPasswordAPodReadsIsARandomValueOfARenderedSecret(t *testing.T) {
	r := render(t, "default")
	// The Secret and keys the secrets hook Job makes in the cluster (the OTP keys).
	made := map[string]bool{}
	for _, j := range All[*batchv1.Job](r) {
		args := j.Spec.Template.Spec.Containers[0].Args
		for i := 0; i+4 < len(args); i++ {
			if args[i] == "ensure-secret" && args[i+1] == "--name" && args[i+3] == "--keys" {
				for _, key := range strings.Split(args[i+4], ",") {
					made[args[i+2]+"/"+key] = true
				}
			}
		}
	}
	// Every secretKeyRef of every pod, the services' and the dependencies', names a Secret and
	// a key of this rendering or of the secrets Job (or is optional).
	for owner, tpl := range r.PodTemplates() {
		for _, c := range append(append([]corev1.Container{}, tpl.Spec.InitContainers...), tpl.Spec.Containers...) {
			for _, e := range c.Env {
				if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
					continue
				}
				ref := e.ValueFrom.SecretKeyRef
				if made[ref.Name+"/"+ref.Key] {
					continue
				}
				s := Find[*corev1.Secret](r, ref.Name)
				optional := ref.Optional != nil && *ref.Optional
				switch {
				case s == nil && !optional:
					t.Errorf("%s/%s: %s reads Secret %s, which is not rendered", owner, c.Name, e.Name, ref.Name)
				case s != nil && len(s.Data[ref.Key]) == 0 && !optional:
					t.Errorf("%s/%s: %s reads key %q of Secret %s, which is empty or missing", owner, c.Name, e.Name, ref.Key, ref.Name)
				}
			}
		}
	}

	passwords := map[string]string{}
	for _, d := range dependencies {
		c := Find[*appsv1.Deployment](r, fullname(d.client)).Spec.Template.Spec.Containers[0]
		v := envVar(c, d.password)
		if v == nil || v.ValueFrom == nil || v.ValueFrom.SecretKeyRef == nil {
			t.Fatalf("%s: %s is not read from a Secret: %+v", d.client, d.password, v)
		}
		// Redis and NATS: each service has a user of its own, its password in the bus users' Secret.
		wantName, wantKey := d.fullname(), d.secretKey
		if d.name != "postgresql" {
			wantName, wantKey = release+"-bus-users", d.name+"-"+d.client
		}
		if ref := v.ValueFrom.SecretKeyRef; ref.Name != wantName || ref.Key != wantKey {
			t.Errorf("%s: %s reads %s/%s, expected %s/%s", d.client, d.password, ref.Name, ref.Key, wantName, wantKey)
		}
		s := Find[*corev1.Secret](r, d.fullname())
		if s == nil {
			t.Fatalf("no Secret %s", d.fullname())
		}
		for key, value := range s.Data {
			if !alnum32.Match(value) {
				t.Errorf("%s/%s is %q, expected 32 random letters and digits", s.Name, key, value)
			}
			passwords[s.Name+"/"+key] = string(value)
		}
	}
	if len(passwords) != 4 {
		t.Errorf("generated passwords: %v, expected the database user's and superuser's, Redis's and NATS's", keysOf(passwords))
	}
	seen := map[string]string{}
	for name, p := range passwords {
		if other, ok := seen[p]; ok {
			t.Errorf("%s and %s are the same password", name, other)
		}
		seen[p] = name
	}
	// Random: another rendering (no cluster to read the Secrets back from) draws new ones.
	again := render(t, "default")
	for _, d := range dependencies {
		before, after := passwords[d.fullname()+"/"+d.secretKey], Find[*corev1.Secret](again, d.fullname()).Data[d.secretKey]
		if before == string(after) {
			t.Errorf("%s: two renderings generated the same password", d.name)
		}
	}
	// The database was initialised with its passwords and its claim outlives an uninstall: so
	// does its Secret, so that a reinstall finds both again.
	if pg := Find[*corev1.Secret](r, release+"-postgresql"); pg.Annotations["helm.sh/resource-policy"] != "keep" {
		t.Errorf("the PostgreSQL Secret is deleted with the release, yet the database keeps its passwords")
	}
}

var envRef = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

func TestWhenRenderedThenNoPasswordAppearsInAConfigMapAnArgumentOrAPlainVariable(t *testing.T) {
	for _, set := range valueSets {
		t.Run(set, func(t *testing.T) {
			r := render(t, set)
			var secrets []string
			for _, s := range All[*corev1.Secret](r) {
				for _, v := range s.Data {
					if len(v) >= 8 {
						secrets = append(secrets, string(v))
					}
				}
			}
			for _, cm := range All[*corev1.ConfigMap](r) {
				for key, data := range cm.Data {
					for _, s := range secrets {
						if strings.Contains(data, s) {
							t.Errorf("ConfigMap %s (%s) holds a Secret's value", cm.Name, key)
						}
					}
				}
			}
			for owner, tpl := range r.PodTemplates() {
				for _, c := range append(append([]corev1.Container{}, tpl.Spec.InitContainers...), tpl.Spec.Containers...) {
					plain := append(append([]string{}, c.Command...), c.Args...)
					fromSecret := map[string]bool{}
					for _, e := range c.Env {
						plain = append(plain, e.Value)
						if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
							fromSecret[e.Name] = true
							continue
						}
						// A secret-looking variable is read from a Secret, or only quotes ones that are.
						if secretName.MatchString(e.Name) {
							refs := envRef.FindAllStringSubmatch(e.Value, -1)
							rest := strings.Trim(envRef.ReplaceAllString(e.Value, ""), `'"`)
							ok := len(refs) > 0 && rest == ""
							for _, ref := range refs {
								ok = ok && fromSecret[ref[1]]
							}
							if !ok {
								t.Errorf("%s/%s: %s=%q is not read from a Secret", owner, c.Name, e.Name, e.Value)
							}
						}
					}
					for _, p := range plain {
						for _, s := range secrets {
							if strings.Contains(p, s) {
								t.Errorf("%s/%s: a Secret's value is in its command, arguments or plain variables", owner, c.Name)
							}
						}
					}
				}
			}
		})
	}
}

// secretRef returns "<secret>/<key>" of a variable read from a Secret, or "".
func secretRef(c corev1.Container, name string) string {
	v := envVar(c, name)
	if v == nil || v.ValueFrom == nil || v.ValueFrom.SecretKeyRef == nil {
		return ""
	}
	return v.ValueFrom.SecretKeyRef.Name + "/" + v.ValueFrom.SecretKeyRef.Key
}

func TestWhenExistingSecretsAreGivenThenNoSecretIsRenderedAndTheDependenciesAndServicesReadThem(t *testing.T) {
	r := render(t, "default", "--set", "postgresql.auth.existingSecret=pg-creds,redis.auth.existingSecret=redis-creds,redis.auth.existingSecretPasswordKey=pw,nats.auth.existingSecret=nats-creds")
	for _, d := range dependencies {
		if Find[*corev1.Secret](r, d.fullname()) != nil {
			t.Errorf("%s: an existing Secret is given, yet the chart renders %s", d.name, d.fullname())
		}
	}
	// What each dependency's pod reads, and what its client service reads.
	want := map[string]map[string]string{
		"postgresql": {"POSTGRES_PASSWORD": "pg-creds/postgres-password", "SERVICES_DB_PASSWORD": "pg-creds/password"},
		"redis":      {"REDIS_PASSWORD": "redis-creds/pw", "REDISCLI_AUTH": "redis-creds/pw"},
		"nats":       {"NATS_PASSWORD": "nats-creds/nats-password"},
	}
	// The services' own NATS and Redis users keep their passwords in the bus users' Secret.
	services := map[string]string{"postgresql": "pg-creds/password", "redis": release + "-bus-users/redis-gateway", "nats": release + "-bus-users/nats-message"}
	for _, d := range dependencies {
		c := d.statefulSet(t, r).Spec.Template.Spec.Containers[0]
		for variable, ref := range want[d.name] {
			if got := secretRef(c, variable); got != ref {
				t.Errorf("%s: %s reads %q, expected %s", d.name, variable, got, ref)
			}
		}
		client := Find[*appsv1.Deployment](r, fullname(d.client)).Spec.Template.Spec.Containers[0]
		if got := secretRef(client, d.password); got != services[d.name] {
			t.Errorf("%s: %s reads %q, expected %s", d.client, d.password, got, services[d.name])
		}
	}
}

func TestWhenABundledValueIsMistypedThenTheSchemaRefusesTheInstall(t *testing.T) {
	cases := map[string]string{
		"a misspelt postgres key":        "postgresql.persistance.size=1Gi",
		"a misspelt nested postgres key": "postgresql.auth.usrname=app",
		"a misspelt redis key":           "redis.auth.enable=false",
		"a redis policy out of its set":  "redis.config.maxmemoryPolicy=evict-everything",
		"a nats size that is no size":    "nats.jetstream.maxFileStore=lots",
		"a misspelt nats policy key":     "nats.networkPolicy.enable=true",
	}
	schemaRefuses(t, cases)
	// Spelt right, the same values are taken.
	r := render(t, "default", "--set", "postgresql.persistence.size=1Gi,redis.auth.enabled=false,nats.jetstream.maxFileStore=4Gi")
	if got := dependencies[0].statefulSet(t, r).Spec.VolumeClaimTemplates[0].Spec.Resources.Requests.Storage().String(); got != "1Gi" {
		t.Errorf("postgresql.persistence.size=1Gi gave a claim of %s", got)
	}
	if envVar(dependencies[1].statefulSet(t, r).Spec.Template.Spec.Containers[0], "REDIS_PASSWORD") != nil {
		t.Errorf("redis.auth.enabled=false, yet Redis still reads a password")
	}
	if !strings.Contains(Find[*corev1.ConfigMap](r, release+"-nats").Data["nats.conf"], "max_file_store: 4Gi") {
		t.Errorf("nats.jetstream.maxFileStore=4Gi is not in the server's configuration")
	}
}

func TestWhenADependencyIsExternalThenNoneOfItsObjectsIsRendered(t *testing.T) {
	external := map[string]string{
		"postgresql": "postgresql.enabled=false,externalDatabase.host=pg.example.internal,externalDatabase.existingSecret=db",
		"redis":      "redis.enabled=false,externalRedis.host=redis.example.internal",
		"nats":       "nats.enabled=false,externalNats.host=nats.example.internal",
	}
	for _, d := range dependencies {
		t.Run(d.name, func(t *testing.T) {
			r := render(t, "ha", "--set", external[d.name])
			for _, o := range r.Objects {
				m, err := meta.Accessor(o)
				if err != nil {
					t.Fatal(err)
				}
				if m.GetLabels()["app.kubernetes.io/name"] == d.name || strings.HasPrefix(m.GetName(), d.fullname()) {
					t.Errorf("%s %s is still rendered", kindOf(o), m.GetName())
				}
			}
			// The other two are still there: the check above is not vacuous.
			for _, other := range dependencies {
				if other.name != d.name && Find[*appsv1.StatefulSet](r, other.fullname()) == nil {
					t.Errorf("turning off %s also removed %s", d.name, other.name)
				}
			}
		})
	}
}

func TestWhenRenderedThenEachDependencyRunsAsItsImageUserAndWritesOnlyToItsVolumes(t *testing.T) {
	r := render(t, "default")
	for _, d := range dependencies {
		t.Run(d.name, func(t *testing.T) {
			spec := d.statefulSet(t, r).Spec.Template.Spec
			psc := spec.SecurityContext
			if psc.RunAsUser == nil || *psc.RunAsUser != d.uid || psc.RunAsGroup == nil || *psc.RunAsGroup != d.gid || psc.FSGroup == nil || *psc.FSGroup != d.gid {
				t.Errorf("runs as %v:%v (fsGroup %v), the image's user is %d:%d", deref(psc.RunAsUser), deref(psc.RunAsGroup), deref(psc.FSGroup), d.uid, d.gid)
			}
			if spec.EnableServiceLinks == nil || *spec.EnableServiceLinks {
				t.Errorf("Service links are on: every Service of the namespace becomes variables of the server")
			}
			c := spec.Containers[0]
			for _, m := range c.VolumeMounts {
				v := volumeOf(spec, m.Name)
				switch {
				case m.Name == "data":
				case v == nil:
					t.Errorf("mount %s has no volume", m.Name)
				case v.ConfigMap != nil && !m.ReadOnly:
					t.Errorf("the configuration at %s is mounted writable", m.MountPath)
				case v.ConfigMap == nil && v.EmptyDir == nil:
					t.Errorf("mount %s (%s) is neither the data volume nor an emptyDir", m.Name, m.MountPath)
				}
			}
			if d.name != "postgresql" {
				return
			}
			data := mountOf(c, "data")
			if pgdata := env(c, "PGDATA"); data == nil || !strings.HasPrefix(pgdata, data.MountPath+"/") {
				t.Errorf("PGDATA=%q is not a subdirectory of the volume (%+v): initdb refuses a directory holding lost+found", pgdata, data)
			}
			for _, path := range []string{"/var/run/postgresql", "/tmp"} {
				if m := mountAt(c, path); m == nil || volumeOf(spec, m.Name) == nil || volumeOf(spec, m.Name).EmptyDir == nil {
					t.Errorf("%s is not an emptyDir, and the root file system is read-only", path)
				}
			}
			stop := c.Lifecycle.PreStop.Exec.Command
			if strings.Join(stop[:3], " ") != "pg_ctl stop --mode=fast" {
				t.Errorf("preStop %v is not a fast shutdown", stop)
			}
			if timeout, _ := strconv.Atoi(strings.TrimPrefix(stop[len(stop)-1], "--timeout=")); timeout <= 0 || int64(timeout) >= *spec.TerminationGracePeriodSeconds {
				t.Errorf("pg_ctl waits %ds, the grace period is %ds", timeout, *spec.TerminationGracePeriodSeconds)
			}
			if got := env(c, "SERVICES_DB_USER"); got == "postgres" || got != "smsgw" {
				t.Errorf("the services' user is %q", got)
			}
		})
	}
	if _, err := helm(t, templateArgs("default", "--set", "postgresql.auth.username=postgres")...); err == nil || !strings.Contains(err.Error(), "must not be the superuser") {
		t.Errorf("the superuser was accepted as the services' user: %v", err)
	}
	if _, err := helm(t, templateArgs("default", "--set", "nats.jetstream.maxFileStore=12Gi")...); err == nil || !strings.Contains(err.Error(), "must be below nats.persistence.size") {
		t.Errorf("a JetStream store larger than its volume was accepted: %v", err)
	}
}

func TestWhenAGlobalRegistryAndPullSecretAreSetThenEveryDependencyPullsFromThem(t *testing.T) {
	official := map[string]string{"postgresql": "postgres", "redis": "redis", "nats": "nats"}
	// A pinned release: major.minor.patch, not a moving tag such as `latest` or `17-alpine`.
	pinned := regexp.MustCompile(`:[0-9]+\.[0-9]+(\.[0-9]+)?-alpine$`)
	d := render(t, "default")
	for _, dep := range dependencies {
		image := dep.statefulSet(t, d).Spec.Template.Spec.Containers[0].Image
		if !strings.HasPrefix(image, "docker.io/library/"+official[dep.name]+":") || !pinned.MatchString(image) {
			t.Errorf("%s: image %s is not a pinned release of the official image", dep.name, image)
		}
	}
	r := render(t, "default", "--set", "global.imageRegistry=mirror.example.com,global.imagePullSecrets[0]=mirror-pull")
	for _, dep := range dependencies {
		spec := dep.statefulSet(t, r).Spec.Template.Spec
		if image := spec.Containers[0].Image; !strings.HasPrefix(image, "mirror.example.com/library/") {
			t.Errorf("%s: image %s ignores global.imageRegistry", dep.name, image)
		}
		if len(spec.ImagePullSecrets) != 1 || spec.ImagePullSecrets[0].Name != "mirror-pull" {
			t.Errorf("%s: pull secrets %v ignore global.imagePullSecrets", dep.name, spec.ImagePullSecrets)
		}
	}
}

func TestWhenDependencyPoliciesAreOnThenOnlyTheirClientsReachThemAndTheyReachOnlyDns(t *testing.T) {
	r := render(t, "ha")
	pods := map[string]pod{}
	for _, p := range podsOf(r) {
		pods[p.name] = p
	}
	// Sources that no policy of the release selects, so that only the dependency's own
	// ingress rules decide.
	service := func(component, instance string) pod {
		return pod{name: component, labels: map[string]string{"app.kubernetes.io/name": "sms-gateway", "app.kubernetes.io/instance": instance, "app.kubernetes.io/component": component}}
	}
	stranger := pod{name: "stranger", labels: map[string]string{"app": "debug"}}
	for _, d := range dependencies {
		t.Run(d.name, func(t *testing.T) {
			np := Find[*networkingv1.NetworkPolicy](r, d.fullname())
			if np == nil {
				t.Fatal("no NetworkPolicy")
			}
			dst, ok := pods[d.name]
			if !ok || !selects(&np.Spec.PodSelector, dst.labels) {
				t.Fatalf("the policy does not select the %s pod", d.name)
			}
			if !hasType(np, networkingv1.PolicyTypeIngress) || !hasType(np, networkingv1.PolicyTypeEgress) {
				t.Errorf("policy types %v", np.Spec.PolicyTypes)
			}
			var egressPorts []string
			for _, rule := range np.Spec.Egress {
				if len(rule.To) == 0 {
					t.Errorf("an egress rule allows any destination")
				}
				for _, p := range rule.Ports {
					egressPorts = append(egressPorts, fmt.Sprintf("%s/%s", p.Port.String(), *p.Protocol))
				}
			}
			if sort.Strings(egressPorts); strings.Join(egressPorts, " ") != "53/TCP 53/UDP" {
				t.Errorf("egress on %v, expected DNS only", egressPorts)
			}
			own := []*networkingv1.NetworkPolicy{np}
			if !allowed(own, service(d.client, release), dst, d.port) {
				t.Errorf("%s, a client, may not connect", d.client)
			}
			for _, src := range []pod{service(d.nonClient, release), service(d.client, "other-release"), stranger} {
				if allowed(own, src, dst, d.port) {
					t.Errorf("%s (%v) may connect", src.name, src.labels)
				}
			}
		})
	}

	// A backup job let in by extraIngress; every service of the release when the list is empty.
	more := render(t, "ha", "--set", "postgresql.networkPolicy.extraIngress[0].from[0].podSelector.matchLabels.app=pg-backup,postgresql.networkPolicy.extraIngress[0].ports[0].port=5432",
		"--set", "redis.networkPolicy.clientComponents=null")
	backup := pod{name: "backup", labels: map[string]string{"app": "pg-backup"}}
	pg, redis := dependencies[0], dependencies[1]
	if !allowed([]*networkingv1.NetworkPolicy{Find[*networkingv1.NetworkPolicy](more, pg.fullname())}, backup, pods["postgresql"], 5432) {
		t.Errorf("postgresql.networkPolicy.extraIngress does not let the backup job in")
	}
	if !allowed([]*networkingv1.NetworkPolicy{Find[*networkingv1.NetworkPolicy](more, redis.fullname())}, service(redis.nonClient, release), pods["redis"], 6379) {
		t.Errorf("with no clientComponents, a service of the release may not reach Redis")
	}

	// The NATS monitoring port: nobody by default (the kubelet's probes need no rule), only
	// networkPolicy.metricsFrom when set, and never the client port for those.
	prometheus := pod{name: "prometheus", labels: map[string]string{"app": "prometheus"}}
	nats := pods["nats"]
	if _, ok := nats.ports[8222]; !ok {
		t.Fatalf("the NATS pod does not serve the monitoring port 8222: %v", nats.ports)
	}
	defaults := []*networkingv1.NetworkPolicy{Find[*networkingv1.NetworkPolicy](r, release+"-nats")}
	for _, src := range []pod{prometheus, service("message", release)} {
		if allowed(defaults, src, nats, 8222) {
			t.Errorf("%s may reach the NATS monitoring port by default", src.name)
		}
	}
	scraped := render(t, "ha", "--set", "nats.networkPolicy.metricsFrom[0].podSelector.matchLabels.app=prometheus")
	withMetrics := []*networkingv1.NetworkPolicy{Find[*networkingv1.NetworkPolicy](scraped, release+"-nats")}
	if !allowed(withMetrics, prometheus, nats, 8222) || allowed(withMetrics, prometheus, nats, 4222) {
		t.Errorf("metricsFrom: monitoring port %v, client port %v; expected only the monitoring port",
			allowed(withMetrics, prometheus, nats, 8222), allowed(withMetrics, prometheus, nats, 4222))
	}
}

// ---- The real servers: what the rendered settings do to nats-server, redis-server and postgres. ----

func TestWhenNatsServerRunsTheRenderedConfigThenJetStreamIsOnTheProbesPassAndOnlyThePasswordGetsIn(t *testing.T) {
	bin := lookBinary(t, "nats-server", "/usr/sbin/nats-server")
	r := render(t, "default")
	nats := dependencies[2]
	c := nats.statefulSet(t, r).Spec.Template.Spec.Containers[0]
	conf := Find[*corev1.ConfigMap](r, release+"-nats").Data["nats.conf"]
	if !strings.Contains(strings.Join(c.Args, " "), "--config /etc/nats/nats.conf") || mountAt(c, "/etc/nats") == nil {
		t.Fatalf("the server does not read the ConfigMap: args %v", c.Args)
	}
	natsUser := env(Find[*appsv1.Deployment](r, fullname("message")).Spec.Template.Spec.Containers[0], "NATS_USER")
	vars := containerEnv(t, r, c)
	// The variable that holds the message service's password in the server's configuration.
	m := regexp.MustCompile(`user: "` + regexp.QuoteMeta(natsUser) + `", password: \$(NATS_SERVICE_PASSWORD_\d+)_QUOTED`).FindStringSubmatch(conf)
	if natsUser != "smsgw-message" || m == nil {
		t.Fatalf("the message service's user %q is not in the server's configuration:\n%s", natsUser, conf)
	}
	natsPasswordVar := m[1]

	// nats-server's own check of the file, with the container's variables.
	path := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	check := exec.Command(bin, "-c", path, "-t")
	check.Env = environ(vars)
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("nats-server refuses the rendered configuration: %v\n%s\n%s", err, out, conf)
	}

	// serve runs the configuration as rendered, on free ports and a temporary store, until it
	// answers every probe of the StatefulSet; it returns the client port and the monitoring URL.
	serve := func(t *testing.T, vars map[string]string) (int, string) {
		t.Helper()
		clientPort, monitorPort, dir := freePort(t), freePort(t), t.TempDir()
		live := strings.NewReplacer("port: 4222", fmt.Sprintf("port: %d", clientPort), "http_port: 8222", fmt.Sprintf("http_port: %d", monitorPort), `store_dir: "/data"`, fmt.Sprintf("store_dir: %q", dir)).Replace(conf)
		if !strings.Contains(live, dir) || !strings.Contains(live, fmt.Sprintf("http_port: %d", monitorPort)) {
			t.Fatalf("could not move the configuration to free ports and a temporary store:\n%s", conf)
		}
		path := filepath.Join(dir, "nats.conf")
		if err := os.WriteFile(path, []byte(live), 0o600); err != nil {
			t.Fatal(err)
		}
		server := exec.Command(bin, "-c", path)
		server.Env = environ(vars)
		start(t, server)
		monitor := fmt.Sprintf("http://127.0.0.1:%d", monitorPort)
		for _, probe := range []*corev1.Probe{c.StartupProbe, c.ReadinessProbe, c.LivenessProbe} {
			if probe == nil || probe.HTTPGet == nil || probe.HTTPGet.Port.String() != "monitor" || containerPort(c, "monitor") != 8222 {
				t.Fatalf("a probe is not an HTTP probe of the monitoring port: %+v", probe)
			}
			waitFor(t, 15*time.Second, "nats-server to answer "+probe.HTTPGet.Path, func() error {
				resp, err := http.Get(monitor + probe.HTTPGet.Path)
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					body, _ := io.ReadAll(resp.Body)
					return fmt.Errorf("%d %s", resp.StatusCode, body)
				}
				return nil
			})
		}
		return clientPort, monitor
	}

	clientPort, monitor := serve(t, vars)
	var jsz struct {
		Config struct {
			MaxStorage int64  `json:"max_storage"`
			StoreDir   string `json:"store_dir"`
		} `json:"config"`
	}
	resp, err := http.Get(monitor + "/jsz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&jsz); err != nil {
		t.Fatal(err)
	}
	if jsz.Config.MaxStorage != 8<<30 || !strings.HasPrefix(jsz.Config.StoreDir, os.TempDir()) {
		t.Errorf("JetStream stores at most %d bytes in %q, expected 8Gi in the store directory", jsz.Config.MaxStorage, jsz.Config.StoreDir)
	}
	if got := natsConnect(t, clientPort, natsUser, vars[natsPasswordVar]); got != "PONG" {
		t.Errorf("the message service's user %q and password are refused: %s", natsUser, got)
	}
	if got := natsConnect(t, clientPort, "smsgw", vars["NATS_PASSWORD"]); got != "PONG" {
		t.Errorf("the administrator's user and password are refused: %s", got)
	}
	if got := natsConnect(t, clientPort, natsUser, "wrong"); !strings.Contains(got, "Authorization Violation") {
		t.Errorf("a wrong password is answered %q", got)
	}

	// nats-server parses a variable's value as configuration: an existing Secret's password
	// that reads as a number, a size, a boolean or a comment must still be that very password.
	for _, password := range []string{"12345", "8Gi", "1e5abc", "true", `a b#c"d`} {
		t.Run(password, func(t *testing.T) {
			port, _ := serve(t, containerEnvWith(t, r, c, map[string]string{natsPasswordVar: password}))
			if got := natsConnect(t, port, natsUser, password); got != "PONG" {
				t.Errorf("the password %q is refused: %s", password, got)
			}
		})
	}
}

func TestWhenRedisServerRunsTheRenderedConfigThenTheProbeNeedsThePasswordAndFlushingIsDisabled(t *testing.T) {
	bin := lookBinary(t, "redis-server", "/usr/bin/redis-server")
	cli := lookBinary(t, "redis-cli", "/usr/bin/redis-cli")
	r := render(t, "default")
	redis := dependencies[1]
	c := redis.statefulSet(t, r).Spec.Template.Spec.Containers[0]
	vars := containerEnv(t, r, c)
	dir := t.TempDir()
	// The rendered file, its data directory (the volume's mount) moved here.
	rendered := Find[*corev1.ConfigMap](r, release+"-redis").Data["redis.conf"]
	if mountAt(c, "/data") == nil || !strings.Contains(rendered, "\ndir /data\n") {
		t.Fatalf("Redis does not keep its files on the volume at /data:\n%s", rendered)
	}
	conf := filepath.Join(dir, "redis.conf")
	if err := os.WriteFile(conf, []byte(strings.Replace(rendered, "\ndir /data\n", "\ndir "+dir+"\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	// The arguments as the kubelet expands them, the ConfigMap's path moved here; then a port
	// this machine has free (later arguments win over the file).
	if len(c.Args) < 2 || c.Args[0] != "redis-server" || c.Args[1] != "/etc/redis/redis.conf" || mountAt(c, "/etc/redis") == nil {
		t.Fatalf("redis-server does not read the ConfigMap: %v", c.Args)
	}
	port := freePort(t)
	args := []string{conf}
	for _, a := range c.Args[2:] {
		args = append(args, expand(a, vars))
	}
	args = append(args, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--daemonize", "no")
	server := exec.Command(bin, args...)
	start(t, server)

	probe := c.ReadinessProbe.Exec.Command
	if probe[0] != "redis-cli" || probe[len(probe)-1] != "ping" || !contains(probe, "-e") {
		t.Fatalf("the probe is %v", probe)
	}
	run := func(auth string, argv ...string) (string, error) {
		var fixed []string
		for i := 1; i < len(argv); i++ {
			fixed = append(fixed, argv[i])
			if argv[i] == "-p" && i+1 < len(argv) {
				fixed, i = append(fixed, strconv.Itoa(port)), i+1
			}
		}
		cmd := exec.Command(cli, fixed...)
		cmd.Env = environ(map[string]string{"REDISCLI_AUTH": auth})
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	waitFor(t, 10*time.Second, "the readiness probe to pass", func() error {
		out, err := run(vars["REDISCLI_AUTH"], probe...)
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	})
	if out, err := run("wrong", probe...); err == nil {
		t.Errorf("the probe passes with a wrong password: %s", out)
	}
	query := func(args ...string) string {
		out, _ := run(vars["REDISCLI_AUTH"], append([]string{"redis-cli", "-e", "-p", "6379"}, args...)...)
		return out
	}
	if out := query("FLUSHALL"); !strings.Contains(out, "unknown command") {
		t.Errorf("FLUSHALL answers %q", out)
	}
	if out := query("CONFIG", "GET", "maxmemory-policy"); !strings.HasSuffix(out, "noeviction") {
		t.Errorf("maxmemory-policy: %q", out)
	}
	if out := query("CONFIG", "GET", "appendonly"); !strings.HasSuffix(out, "yes") {
		t.Errorf("appendonly: %q", out)
	}
	if out := query("SET", "k", "v"); out != "OK" {
		t.Errorf("SET answers %q", out)
	}
	// Each service's ACL user (its password from the bus users' Secret): its own keys only.
	asUser := func(user string, args ...string) string {
		auth := []string{"-e", "-p", strconv.Itoa(port), "--no-auth-warning", "--user", user, "--pass", busUserPassword("redis-" + strings.TrimPrefix(user, "smsgw-"))}
		out, _ := exec.Command(cli, append(auth, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out))
	}
	if out := asUser("smsgw-dashboard", "SET", "smsgw:dashboard:session:x", "v"); out != "OK" {
		t.Errorf("the dashboard's user writing its own session key: %q", out)
	}
	for _, c := range [][]string{{"smsgw-dashboard", "SET", "smsgw:idempotency:cli_x:live:k", "v"}, {"smsgw-dashboard", "GET", "smsgw:presence:device_x"}, {"smsgw-gateway", "SET", "smsgw:presence:device_x", "v"}, {"smsgw-otp", "KEYS", "*"}} {
		if out := asUser(c[0], c[1:]...); !strings.Contains(out, "NOPERM") {
			t.Errorf("%s: %v answers %q, expected NOPERM", c[0], c[1:], out)
		}
	}
	if out := asUser("smsgw-gateway", "EXISTS", "smsgw:presence:device_x"); out != "0" {
		t.Errorf("the gateway's user reading a presence: %q", out)
	}
	// SIGTERM, as the kubelet sends it: Redis saves and exits cleanly, its files on the volume.
	if err := server.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := waitExit(server, 10*time.Second); err != nil {
		t.Errorf("redis-server did not exit cleanly on SIGTERM: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "appendonlydir")); err != nil {
		t.Errorf("no append-only file in the data directory: %v", err)
	}
}

func TestWhenPostgresInitialisesWithTheRenderedSettingsThenTheServicesUserOwnsTheDatabaseWithoutBeingSuperuser(t *testing.T) {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	if len(bins) == 0 {
		t.Fatal("no PostgreSQL server under /usr/lib/postgresql")
	}
	sort.Strings(bins)
	bin := filepath.Dir(bins[len(bins)-1])
	// initdb and postgres refuse root; the init script's peer authentication wants an OS user
	// named like the superuser, as the image's `postgres` user is.
	account, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	if account.Uid == "0" {
		if account, err = user.Lookup("postgres"); err != nil {
			t.Fatal("running as root with no `postgres` user to run the server as")
		}
	}
	r := render(t, "default")
	pg := dependencies[0]
	c := pg.statefulSet(t, r).Spec.Template.Spec.Containers[0]
	vars := containerEnv(t, r, c)
	if account.Username != vars["POSTGRES_USER"] {
		t.Fatalf("peer authentication needs the OS user %q, this test runs as %q", vars["POSTGRES_USER"], account.Username)
	}
	uid, _ := strconv.Atoi(account.Uid)
	gid, _ := strconv.Atoi(account.Gid)
	base, err := os.MkdirTemp("", "smsgw-postgres-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	data, sock := filepath.Join(base, "data"), filepath.Join(base, "sock")
	for _, d := range []string{base, sock} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(d, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	port := freePort(t)
	vars["PGDATA"] = data
	vars["PGHOST"], vars["PGPORT"] = sock, strconv.Itoa(port)
	vars["PATH"] = bin + ":/usr/bin:/bin"
	as := func(name string, args ...string) *exec.Cmd {
		if !strings.Contains(name, "/") {
			name = filepath.Join(bin, name)
		}
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = base, environ(vars)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		return cmd
	}
	mustRun := func(cmd *exec.Cmd) string {
		t.Helper()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
		}
		return strings.TrimSpace(string(out))
	}

	// What the image's entrypoint does with the container's environment: initdb, a password
	// rule for every host, the database, then the init scripts against a server.
	pwfile := filepath.Join(base, "pwfile")
	if err := os.WriteFile(pwfile, []byte(vars["POSTGRES_PASSWORD"]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chown(pwfile, uid, gid)
	mustRun(as("initdb", append([]string{"--username=" + vars["POSTGRES_USER"], "--pwfile=" + pwfile}, strings.Fields(vars["POSTGRES_INITDB_ARGS"])...)...))
	hba, err := os.OpenFile(filepath.Join(data, "pg_hba.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(hba, "\nhost all all all %s\n", vars["POSTGRES_HOST_AUTH_METHOD"])
	hba.Close()
	if c.Args[0] != "postgres" {
		t.Fatalf("the container runs %v", c.Args)
	}
	server := as("postgres", append(append([]string{}, c.Args[1:]...), "-k", sock, "-p", strconv.Itoa(port), "-c", "listen_addresses=127.0.0.1")...)
	start(t, server)

	probe := append([]string{}, c.ReadinessProbe.Exec.Command...)
	for i, a := range probe {
		if a == "--port=5432" {
			probe[i] = fmt.Sprintf("--port=%d", port)
		}
	}
	waitFor(t, 20*time.Second, "the readiness probe to pass", func() error {
		if out, err := as(probe[0], probe[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("%v %s", err, out)
		}
		return nil
	})
	mustRun(as("psql", "-X", "-v", "ON_ERROR_STOP=1", "--username", vars["POSTGRES_USER"], "--dbname", "postgres", "-c", fmt.Sprintf("CREATE DATABASE %q", vars["POSTGRES_DB"])))
	script := filepath.Join(base, "init.sh")
	cm := Find[*corev1.ConfigMap](r, release+"-postgresql-initdb")
	if len(cm.Data) != 1 {
		t.Fatalf("initdb scripts: %v", keysOf(cm.Data))
	}
	for _, body := range cm.Data {
		if err := os.WriteFile(script, []byte(body), 0o555); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(as(script))

	// The services' user, over TCP with its password as the services connect: it owns the
	// database, may create a schema there, and is no superuser.
	services := func(password, sql string) (string, error) {
		cmd := as("psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", fmt.Sprintf("host=127.0.0.1 port=%d user=%s dbname=%s", port, vars["SERVICES_DB_USER"], vars["POSTGRES_DB"]), "-c", sql)
		cmd.Env = append(cmd.Env, "PGPASSWORD="+password)
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	out, err := services(vars["SERVICES_DB_PASSWORD"], `CREATE SCHEMA account; CREATE TABLE account.t (id int);
		SELECT rolsuper FROM pg_roles WHERE rolname = current_user;
		SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = current_database();`)
	if err != nil {
		t.Fatalf("the services' user cannot create its schema: %v\n%s", err, out)
	}
	if lines := strings.Split(out, "\n"); len(lines) < 2 || lines[len(lines)-2] != "f" || lines[len(lines)-1] != vars["SERVICES_DB_USER"] {
		t.Errorf("superuser and database owner: %q, expected f and %s", out, vars["SERVICES_DB_USER"])
	}
	if out, err := services("wrong", "SELECT 1"); err == nil {
		t.Errorf("a wrong password gets in: %s", out)
	}
	// No password-free way in over TCP, even from the pod itself.
	noPassword := as("psql", "-X", "-w", fmt.Sprintf("host=127.0.0.1 port=%d user=%s dbname=postgres", port, vars["POSTGRES_USER"]), "-c", "SELECT 1")
	if out, err := noPassword.CombinedOutput(); err == nil {
		t.Errorf("the superuser gets in over TCP without a password: %s", out)
	}

	// The preStop hook: a fast shutdown, done well within the grace period.
	stop := c.Lifecycle.PreStop.Exec.Command
	began := time.Now()
	mustRun(as(stop[0], stop[1:]...))
	if err := waitExit(server, 10*time.Second); err != nil {
		t.Errorf("the server did not stop after the preStop hook: %v", err)
	}
	if took := time.Since(began); took > 10*time.Second {
		t.Errorf("the fast shutdown took %s", took)
	}
}

// ---- helpers ----

func mountOf(c corev1.Container, volume string) *corev1.VolumeMount {
	for i := range c.VolumeMounts {
		if c.VolumeMounts[i].Name == volume {
			return &c.VolumeMounts[i]
		}
	}
	return nil
}

func mountAt(c corev1.Container, path string) *corev1.VolumeMount {
	for i := range c.VolumeMounts {
		if c.VolumeMounts[i].MountPath == path {
			return &c.VolumeMounts[i]
		}
	}
	return nil
}

func volumeOf(spec corev1.PodSpec, name string) *corev1.Volume {
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == name {
			return &spec.Volumes[i]
		}
	}
	return nil
}

// containerPort resolves a port name (or number) of a container to its number, or 0.
func containerPort(c corev1.Container, nameOrNumber string) int32 {
	for _, p := range c.Ports {
		if p.Name == nameOrNumber || strconv.Itoa(int(p.ContainerPort)) == nameOrNumber {
			return p.ContainerPort
		}
	}
	return 0
}

func deref(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// containerEnv resolves a container's variables as the kubelet does: Secret references from
// the rendering's Secrets, $(NAME) references to the variables declared before.
func containerEnv(t *testing.T, r *Rendered, c corev1.Container) map[string]string {
	return containerEnvWith(t, r, c, nil)
}

// containerEnvWith is containerEnv with some Secret-read variables given other values.
func containerEnvWith(t *testing.T, r *Rendered, c corev1.Container, override map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, e := range c.Env {
		switch {
		case override[e.Name] != "":
			out[e.Name] = override[e.Name]
		case e.ValueFrom == nil:
			out[e.Name] = expand(e.Value, out)
		case e.ValueFrom.SecretKeyRef != nil && e.ValueFrom.SecretKeyRef.Name == release+"-bus-users":
			// Made by the bus users' hook Job, never rendered: an awkward password of that key.
			out[e.Name] = busUserPassword(e.ValueFrom.SecretKeyRef.Key)
		case e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			s := Find[*corev1.Secret](r, ref.Name)
			if s == nil || len(s.Data[ref.Key]) == 0 {
				t.Fatalf("%s: %s reads %s/%s, which is not rendered", c.Name, e.Name, ref.Name, ref.Key)
			}
			out[e.Name] = string(s.Data[ref.Key])
		}
	}
	return out
}

// busUserPassword stands for the generated password of a service's NATS or Redis user (base64:
// letters, digits, +, / and =).
func busUserPassword(key string) string { return "pw+" + key + "/=" }

func expand(s string, env map[string]string) string {
	return envRef.ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := env[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

func environ(env map[string]string) []string {
	out := []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}

func lookBinary(t *testing.T, name, fallback string) string {
	t.Helper()
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if _, err := os.Stat(fallback); err == nil {
		return fallback
	}
	t.Fatalf("%s is not installed", name)
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// start runs a server for the rest of the test, its output kept for a failure's message.
func start(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		if t.Failed() {
			t.Logf("%s said:\n%s", filepath.Base(cmd.Path), out.String())
		}
	})
}

func waitExit(cmd *exec.Cmd, limit time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(limit):
		return fmt.Errorf("still running after %s", limit)
	}
}

func waitFor(t *testing.T, limit time.Duration, what string, try func() error) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		err := try()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s: %v", limit, what, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// natsConnect speaks the client protocol: CONNECT with a user and password, then PING; it
// returns the server's answer (PONG, or -ERR and why).
func natsConnect(t *testing.T, port int, user, password string) string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	lines := bufio.NewReader(conn)
	if info, err := lines.ReadString('\n'); err != nil || !strings.HasPrefix(info, "INFO ") {
		t.Fatalf("no INFO from nats-server: %q %v", info, err)
	}
	connect, _ := json.Marshal(map[string]any{"user": user, "pass": password, "verbose": false, "pedantic": false})
	fmt.Fprintf(conn, "CONNECT %s\r\nPING\r\n", connect)
	answer, err := lines.ReadString('\n')
	if err != nil {
		return err.Error()
	}
	return strings.TrimSpace(answer)
}
