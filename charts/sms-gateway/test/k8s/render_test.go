// Package charttest renders the chart with helm and reads every object back into the
// Kubernetes API types, refusing unknown fields, before asserting what a platform team relies on.
package charttest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

const (
	release   = "smsgw"
	namespace = "sms"
	// The oldest Kubernetes the chart supports (Chart.yaml kubeVersion).
	kubeVersion = "1.30.0"
)

// The chart's services and the port each serves (gRPC, or HTTP for gateway and dashboard).
var services = map[string]int32{
	"account":    50051,
	"message":    50052,
	"device-hub": 50053,
	"otp":        50054,
	"scheduler":  50055,
	"webhook":    50056,
	"gateway":    8443,
	"dashboard":  8445,
	"smpp":       3550,
}

func chartDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

func helmBinary(t *testing.T) string {
	t.Helper()
	if h := os.Getenv("HELM"); h != "" {
		return h
	}
	h := filepath.Join(chartDir(), "..", "..", ".tools", "bin", "helm")
	if _, err := os.Stat(h); err != nil {
		t.Fatalf("helm not found at %s: run `make chart-test`, which installs it (or set HELM)", h)
	}
	return h
}

// helm runs a helm command and returns its stdout, or its stderr as the error.
func helm(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(helmBinary(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("helm %s: %v\n%s%s", strings.Join(args, " "), err, stderr.String(), stdout.String())
	}
	return stdout.String(), nil
}

// valueSet names a file of ci/, or "" for the defaults.
func templateArgs(valueSet string, extra ...string) []string {
	args := []string{"template", release, chartDir(), "--namespace", namespace, "--kube-version", kubeVersion}
	if valueSet != "" {
		args = append(args, "--values", filepath.Join(chartDir(), "ci", valueSet+"-values.yaml"))
	}
	return append(args, extra...)
}

var scheme = func() *k8sruntime.Scheme {
	s := k8sruntime.NewScheme()
	for _, add := range []func(*k8sruntime.Scheme) error{
		corev1.AddToScheme, appsv1.AddToScheme, autoscalingv2.AddToScheme, policyv1.AddToScheme,
		networkingv1.AddToScheme, monitoringv1.AddToScheme, batchv1.AddToScheme, rbacv1.AddToScheme,
	} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// Strict: an unknown or duplicated field is an error, as `kubectl apply --validate=strict` would say.
var strictDecoder = serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDeserializer()

// Rendered is every object of one rendering, decoded into its API type.
type Rendered struct {
	Objects []k8sruntime.Object
}

// render templates the chart and decodes every document strictly; any failure fails the test.
func render(t *testing.T, valueSet string, extra ...string) *Rendered {
	t.Helper()
	out, err := helm(t, templateArgs(valueSet, extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	r := &Rendered{}
	reader := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(out)))
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading the rendered documents: %v", err)
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		data, err := yaml.YAMLToJSONStrict(doc)
		if err != nil {
			t.Fatalf("a rendered document is not valid YAML (%v):\n%s", err, doc)
		}
		obj, gvk, err := strictDecoder.Decode(data, nil, nil)
		if err != nil {
			t.Fatalf("a rendered object does not decode strictly into the Kubernetes API types: %v\n%s", err, doc)
		}
		if gvk.Kind == "" {
			t.Fatalf("a rendered object has no kind:\n%s", doc)
		}
		r.Objects = append(r.Objects, obj)
	}
	if len(r.Objects) == 0 {
		t.Fatal("the chart rendered nothing")
	}
	return r
}

func stripComments(doc []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

func kindOf(obj k8sruntime.Object) string {
	gvks, _, err := scheme.ObjectKinds(obj)
	if err != nil || len(gvks) == 0 {
		return fmt.Sprintf("%T", obj)
	}
	return gvks[0].Kind
}

func nameOf(obj k8sruntime.Object) string {
	if o, ok := obj.(interface{ GetName() string }); ok {
		return o.GetName()
	}
	return ""
}

// Find returns the object of this kind and name, or nil.
func Find[T k8sruntime.Object](r *Rendered, name string) T {
	var zero T
	for _, o := range r.Objects {
		if typed, ok := o.(T); ok && nameOf(o) == name {
			return typed
		}
	}
	return zero
}

// All returns every object of one type.
func All[T k8sruntime.Object](r *Rendered) []T {
	var out []T
	for _, o := range r.Objects {
		if typed, ok := o.(T); ok {
			out = append(out, typed)
		}
	}
	return out
}

func fullname(service string) string { return release + "-sms-gateway-" + service }

// PodTemplates returns the pod templates of every Deployment and StatefulSet, by owner name.
func (r *Rendered) PodTemplates() map[string]corev1.PodTemplateSpec {
	out := map[string]corev1.PodTemplateSpec{}
	for _, d := range All[*appsv1.Deployment](r) {
		out["Deployment/"+d.Name] = d.Spec.Template
	}
	for _, s := range All[*appsv1.StatefulSet](r) {
		out["StatefulSet/"+s.Name] = s.Spec.Template
	}
	return out
}

// schemaRefuses renders the defaults with each `--set` of cases (a subtest each) and expects
// the values schema to refuse it.
func schemaRefuses(t *testing.T, cases map[string]string) {
	t.Helper()
	for name, set := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := helm(t, templateArgs("default", "--set", set)...)
			if err == nil || !strings.Contains(err.Error(), "schema") {
				t.Fatalf("--set %s was accepted (or refused for another reason): %v", set, err)
			}
		})
	}
}
