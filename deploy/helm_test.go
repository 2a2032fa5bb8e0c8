package deploy

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/dynamodb-exporter/dynamodb_exporter/alerts"
	"github.com/dynamodb-exporter/dynamodb_exporter/internal/testtools"
)

const (
	chartDir     = "helm/dynamodb-exporter"
	ruleFile     = chartDir + "/files/prometheusrule.yml"
	shardedValue = chartDir + "/ci/sharded-values.yaml"
	release      = "dynamodb-exporter"
	namespace    = "monitoring"
	// kubeVersion is passed to helm template: a helm built with go install
	// assumes Kubernetes 1.20, older than the chart's kubeVersion (1.28, for
	// the pod-index label the shards read their ordinal from).
	kubeVersion = "1.31.0"
)

// TestChartPrometheusRuleIsThePack keeps the chart's PrometheusRule file the
// output of `dynamodb_exporter alerts render --format prometheus-operator`
// with the shipped defaults; go generate ./deploy rewrites it with that
// very command.
func TestChartPrometheusRuleIsThePack(t *testing.T) {
	// nil: the shipped defaults, as alerts render without --config.
	want, err := alerts.RenderOperator(nil, "dynamodb-exporter")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(ruleFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from `dynamodb_exporter alerts render --format prometheus-operator`: regenerate it with go generate ./deploy", ruleFile)
	}
}

func TestHelmLint(t *testing.T) {
	helm := testtools.Helm(t)
	for _, values := range []string{"", shardedValue} {
		args := []string{"lint", "--strict", chartDir}
		if values != "" {
			args = append(args, "-f", values)
		}
		res := testtools.RunCommand(t, "", helm, args...)
		if res.ExitCode != 0 {
			t.Errorf("helm %s: exit %d\n%s%s", strings.Join(args, " "), res.ExitCode, res.Stdout, res.Stderr)
		}
	}
}

// object is one rendered manifest: its parsed form and its source.
type object struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name        string            `yaml:"name"`
		Labels      map[string]string `yaml:"labels"`
		Annotations map[string]string `yaml:"annotations"`
	} `yaml:"metadata"`
	doc []byte
}

// render runs helm template with the values files and parses every
// manifest, failing on one without apiVersion, kind or metadata.name, or
// on two of the same kind and name.
func render(t *testing.T, helm string, values ...string) map[string]object {
	t.Helper()
	args := []string{"template", release, chartDir, "--namespace", namespace, "--kube-version", kubeVersion}
	for _, v := range values {
		args = append(args, "-f", v)
	}
	res := testtools.RunCommand(t, "", helm, args...)
	if res.ExitCode != 0 {
		t.Fatalf("helm %s: exit %d\n%s", strings.Join(args, " "), res.ExitCode, res.Stderr)
	}
	objs := map[string]object{}
	dec := yaml.NewDecoder(strings.NewReader(res.Stdout))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if err.Error() == "EOF" {
				break
			}
			t.Fatalf("helm template output is not YAML: %v", err)
		}
		if len(n.Content) == 0 {
			continue
		}
		var o object
		if err := n.Decode(&o); err != nil {
			t.Fatal(err)
		}
		doc, err := yaml.Marshal(&n)
		if err != nil {
			t.Fatal(err)
		}
		o.doc = doc
		if o.APIVersion == "" || o.Kind == "" || o.Metadata.Name == "" {
			t.Fatalf("manifest without apiVersion, kind or metadata.name:\n%s", doc)
		}
		key := o.Kind + "/" + o.Metadata.Name
		if _, dup := objs[key]; dup {
			t.Fatalf("%s rendered twice", key)
		}
		objs[key] = o
	}
	return objs
}

// strict decodes a manifest into its Kubernetes API type, refusing any
// field the type does not have (a misspelt or misplaced key).
func strict(t *testing.T, o object, into any) {
	t.Helper()
	if err := sigsyaml.UnmarshalStrict(o.doc, into); err != nil {
		t.Fatalf("%s/%s is not a valid %s: %v", o.Kind, o.Metadata.Name, reflect.TypeOf(into).Elem(), err)
	}
}

func kinds(objs map[string]object) []string {
	var ks []string
	for k := range objs {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func TestHelmTemplateDefault(t *testing.T) {
	objs := render(t, testtools.Helm(t))
	want := []string{"ConfigMap/" + release, "Deployment/" + release, "Service/" + release, "ServiceAccount/" + release}
	if got := kinds(objs); !slices.Equal(got, want) {
		t.Fatalf("default values render %v, want %v", got, want)
	}
	var d appsv1.Deployment
	strict(t, objs["Deployment/"+release], &d)
	if d.APIVersion != "apps/v1" || *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("deployment: %s, %d replicas, strategy %s; want apps/v1, 1, Recreate", d.APIVersion, *d.Spec.Replicas, d.Spec.Strategy.Type)
	}
	c := checkPod(t, objs, &d.Spec.Template.Spec, d.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--shard") {
			t.Errorf("one replica runs with %s", a)
		}
	}
	var sa corev1.ServiceAccount
	strict(t, objs["ServiceAccount/"+release], &sa)
	if _, ok := sa.Annotations["eks.amazonaws.com/role-arn"]; ok {
		t.Errorf("IRSA annotation set without serviceAccount.roleArn: %v", sa.Annotations)
	}
}

func TestHelmTemplateSharded(t *testing.T) {
	objs := render(t, testtools.Helm(t), shardedValue)
	want := []string{"ConfigMap/" + release, "PrometheusRule/" + release, "Service/" + release, "ServiceAccount/" + release, "ServiceMonitor/" + release, "StatefulSet/" + release}
	if got := kinds(objs); !slices.Equal(got, want) {
		t.Fatalf("sharded values render %v, want %v", got, want)
	}
	var s appsv1.StatefulSet
	strict(t, objs["StatefulSet/"+release], &s)
	if *s.Spec.Replicas != 3 || s.Spec.ServiceName != release || s.Spec.PodManagementPolicy != appsv1.ParallelPodManagement {
		t.Errorf("statefulset: %d replicas, service %q, %s; want 3, %q, Parallel", *s.Spec.Replicas, s.Spec.ServiceName, s.Spec.PodManagementPolicy, release)
	}
	c := checkPod(t, objs, &s.Spec.Template.Spec, s.Spec.Selector.MatchLabels, s.Spec.Template.Labels)
	// Pod N runs --shard=N/3: Kubernetes expands $(SHARD_INDEX) from the
	// env entry, the pod's apps.kubernetes.io/pod-index label.
	if !slices.Contains(c.Args, "--shard=$(SHARD_INDEX)/3") {
		t.Errorf("args %v lack --shard=$(SHARD_INDEX)/3", c.Args)
	}
	found := false
	for _, e := range c.Env {
		if e.Name == "SHARD_INDEX" {
			found = e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.labels['apps.kubernetes.io/pod-index']"
		}
	}
	if !found {
		t.Errorf("SHARD_INDEX is not read from the pod-index label: %+v", c.Env)
	}
	var sa corev1.ServiceAccount
	strict(t, objs["ServiceAccount/"+release], &sa)
	if got := sa.Annotations["eks.amazonaws.com/role-arn"]; got != "arn:aws:iam::123456789012:role/dynamodb-exporter" {
		t.Errorf("IRSA annotation = %q", got)
	}
	var cm corev1.ConfigMap
	strict(t, objs["ConfigMap/"+release], &cm)
	if !strings.Contains(cm.Data["config.yml"], "eu-west-1") {
		t.Errorf("config.yml does not hold the values' config:\n%s", cm.Data["config.yml"])
	}

	sm := objs["ServiceMonitor/"+release]
	var smSpec struct {
		Spec struct {
			Selector  metav1LabelSelector `yaml:"selector"`
			Endpoints []struct {
				Port, Path string
			} `yaml:"endpoints"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(sm.doc, &smSpec); err != nil {
		t.Fatal(err)
	}
	if sm.APIVersion != "monitoring.coreos.com/v1" || sm.Metadata.Labels["release"] != "kube-prometheus-stack" ||
		len(smSpec.Spec.Endpoints) != 1 || smSpec.Spec.Endpoints[0].Port != "http" || smSpec.Spec.Endpoints[0].Path != "/metrics" ||
		!reflect.DeepEqual(smSpec.Spec.Selector.MatchLabels, s.Spec.Selector.MatchLabels) {
		t.Errorf("ServiceMonitor does not scrape the exporter's http port on /metrics:\n%s", sm.doc)
	}

	// The PrometheusRule's spec is the pack's rendering, untouched.
	pack, err := alerts.RenderOperator(nil, "dynamodb-exporter")
	if err != nil {
		t.Fatal(err)
	}
	var gotRule, wantRule map[string]any
	pr := objs["PrometheusRule/"+release]
	if err := yaml.Unmarshal(pr.doc, &gotRule); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(pack, &wantRule); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotRule["spec"], wantRule["spec"]) {
		t.Errorf("the chart's PrometheusRule spec differs from alerts render --format prometheus-operator")
	}
	groups := wantRule["spec"].(map[string]any)["groups"].([]any)
	if pr.APIVersion != "monitoring.coreos.com/v1" || len(groups) < 5 || pr.Metadata.Labels["release"] != "kube-prometheus-stack" {
		t.Errorf("PrometheusRule: %s, %d groups, labels %v", pr.APIVersion, len(groups), pr.Metadata.Labels)
	}
}

type metav1LabelSelector struct {
	MatchLabels map[string]string `yaml:"matchLabels"`
}

// checkPod checks what the chart promises of the exporter's pod and returns
// its container: the selector matches the pod, non-root (the image's uid),
// the runtime's default seccomp profile, read-only root filesystem, no
// privilege escalation, every capability dropped, not privileged, probes on
// the landing page, resources, the config mounted and passed.
func checkPod(t *testing.T, objs map[string]object, pod *corev1.PodSpec, selector, podLabels map[string]string) corev1.Container {
	t.Helper()
	for k, v := range selector {
		if podLabels[k] != v {
			t.Errorf("selector %s=%s does not match the pod labels %v", k, v, podLabels)
		}
	}
	var svc corev1.Service
	strict(t, objs["Service/"+release], &svc)
	if !reflect.DeepEqual(svc.Spec.Selector, selector) || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 9849 || svc.Spec.Ports[0].TargetPort.StrVal != "http" {
		t.Errorf("service selector %v ports %+v; want %v, 9849 -> http", svc.Spec.Selector, svc.Spec.Ports, selector)
	}
	if pod.ServiceAccountName != release {
		t.Errorf("serviceAccountName %q, want %q", pod.ServiceAccountName, release)
	}
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 ||
		psc.RunAsGroup == nil || *psc.RunAsGroup == 0 {
		t.Fatalf("pod securityContext %+v: want runAsNonRoot and a non-zero runAsUser and runAsGroup", psc)
	}
	// The image's user: a chart running another uid would work only by
	// chance (the files of the image belong to 65532).
	if uid := imageUser(t); *psc.RunAsUser != int64(uid) {
		t.Errorf("pod runAsUser %d, the image's USER is %d", *psc.RunAsUser, uid)
	}
	if psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod seccompProfile %+v, want RuntimeDefault", psc.SeccompProfile)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	sc := c.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 ||
		(sc.Privileged != nil && *sc.Privileged) {
		t.Errorf("container securityContext %+v: want a read-only root filesystem, no privilege escalation, every capability dropped, not privileged", sc)
	}
	for name, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		if p == nil || p.HTTPGet == nil || (p.HTTPGet.Path != "/" && p.HTTPGet.Path != "/metrics") || p.HTTPGet.Port.StrVal != "http" {
			t.Errorf("%s probe %+v: want an HTTP GET of / or /metrics on the http port", name, p)
		}
	}
	if len(c.Ports) != 1 || c.Ports[0].Name != "http" || c.Ports[0].ContainerPort != 9849 {
		t.Errorf("container ports %+v", c.Ports)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources %+v: want CPU and memory requests and a memory limit", c.Resources)
	}
	if !slices.Contains(c.Args, "--config=/etc/dynamodb-exporter/config.yml") || len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/etc/dynamodb-exporter" ||
		len(pod.Volumes) != 1 || pod.Volumes[0].ConfigMap == nil || pod.Volumes[0].ConfigMap.Name != release {
		t.Errorf("the ConfigMap is not mounted and passed: args %v mounts %+v volumes %+v", c.Args, c.VolumeMounts, pod.Volumes)
	}
	if !strings.HasSuffix(c.Image, ":0.1.0") {
		t.Errorf("image %q is not pinned to the chart's appVersion", c.Image)
	}
	return c
}

// TestChartRefusesBadValues: a shard in the config (the chart sets it) and
// fewer than one shard fail the rendering with a message naming the value.
func TestChartRefusesBadValues(t *testing.T) {
	helm := testtools.Helm(t)
	dir := t.TempDir()
	for name, c := range map[string]struct{ values, want string }{
		"shard-in-config": {"config:\n  shard: 0/2\n", "config.shard: leave it out"},
		"zero-shards":     {"shards: 0\n", "shards: must be at least 1, got 0"},
	} {
		p := filepath.Join(dir, name+".yaml")
		if err := os.WriteFile(p, []byte(c.values), 0o644); err != nil {
			t.Fatal(err)
		}
		res := testtools.RunCommand(t, "", helm, "template", release, chartDir, "--kube-version", kubeVersion, "-f", p)
		if res.ExitCode == 0 || !strings.Contains(res.Stderr, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want a failure saying %q", name, res.ExitCode, res.Stderr, c.want)
		}
	}
}
