package dashboards

import (
	"os"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestProvisioningFiles checks the shape Grafana expects of the two
// provisioning files: a Prometheus datasource, and a file provider whose
// path the instructions in dashboards/README.md mount the dashboards at.
func TestProvisioningFiles(t *testing.T) {
	var ds struct {
		APIVersion  int `yaml:"apiVersion"`
		Datasources []struct {
			Name, Type, Access, URL string
		} `yaml:"datasources"`
	}
	readYAML(t, "provisioning/datasources/prometheus.yml", &ds)
	if ds.APIVersion != 1 || len(ds.Datasources) != 1 || ds.Datasources[0].Type != "prometheus" || ds.Datasources[0].Access != "proxy" || ds.Datasources[0].URL == "" {
		t.Errorf("datasource provisioning: %+v, want apiVersion 1 and one prometheus datasource with a url", ds)
	}
	var dp struct {
		APIVersion int `yaml:"apiVersion"`
		Providers  []struct {
			Name, Folder, Type string
			Options            struct{ Path string }
		} `yaml:"providers"`
	}
	readYAML(t, "provisioning/dashboards/dynamodb.yml", &dp)
	if dp.APIVersion != 1 || len(dp.Providers) != 1 || dp.Providers[0].Type != "file" || dp.Providers[0].Options.Path != ProvisionedPath {
		t.Errorf("dashboard provisioning: %+v, want one file provider at %s", dp, ProvisionedPath)
	}
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), ProvisionedPath) {
		t.Errorf("dashboards/README.md does not say where to put the dashboards (%s)", ProvisionedPath)
	}
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
