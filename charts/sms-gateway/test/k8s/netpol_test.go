package charttest

import (
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// pod is one workload of the release as NetworkPolicies see it: its labels and its ports.
type pod struct {
	name   string
	labels map[string]string
	ports  map[int32]string // number -> name
}

// podsOf lists the release's pods (one per Deployment or StatefulSet), named by component.
func podsOf(r *Rendered) []pod {
	var out []pod
	for owner, tpl := range r.PodTemplates() {
		p := pod{name: owner, labels: tpl.Labels, ports: map[int32]string{}}
		if c := tpl.Labels["app.kubernetes.io/component"]; tpl.Labels["app.kubernetes.io/name"] == "sms-gateway" {
			p.name = c
		} else {
			p.name = tpl.Labels["app.kubernetes.io/name"]
		}
		for _, c := range tpl.Spec.Containers {
			for _, port := range c.Ports {
				p.ports[port.ContainerPort] = port.Name
			}
		}
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// The release's namespace carries no labels in this model: a namespaceSelector with labels
// (the ingress controller's, Prometheus's) never matches a pod of the release.
func peerMatches(peer networkingv1.NetworkPolicyPeer, p pod) bool {
	if peer.IPBlock != nil {
		// Pod addresses are private; the chart's ipBlocks are for the internet.
		return false
	}
	if peer.NamespaceSelector != nil && !selects(peer.NamespaceSelector, map[string]string{}) {
		return false
	}
	if peer.PodSelector != nil {
		return selects(peer.PodSelector, p.labels)
	}
	return true
}

func selects(sel *metav1.LabelSelector, l map[string]string) bool {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		panic(err)
	}
	return s.Matches(labels.Set(l))
}

func portMatches(ports []networkingv1.NetworkPolicyPort, dst pod, port int32) bool {
	if len(ports) == 0 {
		return true
	}
	for _, p := range ports {
		if p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP {
			continue
		}
		if p.Port == nil {
			return true
		}
		if p.Port.Type == intstr.Int && p.Port.IntVal == port {
			return true
		}
		if p.Port.Type == intstr.String && dst.ports[port] == p.Port.StrVal {
			return true
		}
	}
	return false
}

func hasType(np *networkingv1.NetworkPolicy, t networkingv1.PolicyType) bool {
	for _, pt := range np.Spec.PolicyTypes {
		if pt == t {
			return true
		}
	}
	return false
}

// allowed says whether src may open a TCP connection to dst's port under every policy of the
// rendering (Kubernetes semantics: a pod selected by no policy of a direction is open in it;
// otherwise one rule of one selecting policy must allow the connection).
func allowed(policies []*networkingv1.NetworkPolicy, src, dst pod, port int32) bool {
	egressIsolated, egressOK := false, false
	ingressIsolated, ingressOK := false, false
	for _, np := range policies {
		if hasType(np, networkingv1.PolicyTypeEgress) && selects(&np.Spec.PodSelector, src.labels) {
			egressIsolated = true
			for _, rule := range np.Spec.Egress {
				if !portMatches(rule.Ports, dst, port) {
					continue
				}
				if len(rule.To) == 0 {
					egressOK = true
				}
				for _, peer := range rule.To {
					if peerMatches(peer, dst) {
						egressOK = true
					}
				}
			}
		}
		if hasType(np, networkingv1.PolicyTypeIngress) && selects(&np.Spec.PodSelector, dst.labels) {
			ingressIsolated = true
			for _, rule := range np.Spec.Ingress {
				if !portMatches(rule.Ports, dst, port) {
					continue
				}
				if len(rule.From) == 0 {
					ingressOK = true
				}
				for _, peer := range rule.From {
					if peerMatches(peer, src) {
						ingressOK = true
					}
				}
			}
		}
	}
	return (!egressIsolated || egressOK) && (!ingressIsolated || ingressOK)
}

// connections lists every "src -> dst:port" the policies allow between the release's pods.
func connections(r *Rendered) []string {
	policies := All[*networkingv1.NetworkPolicy](r)
	pods := podsOf(r)
	var out []string
	for _, src := range pods {
		for _, dst := range pods {
			if dst.name == src.name {
				continue
			}
			for port := range dst.ports {
				if allowed(policies, src, dst, port) {
					out = append(out, fmt.Sprintf("%s -> %s:%d", src.name, dst.name, port))
				}
			}
		}
	}
	sort.Strings(out)
	return out
}
