package capacity

import (
	"math"
	"strings"
	"testing"
)

func TestPricesUSEast1(t *testing.T) {
	p, err := PricesFor("us-east-1")
	if err != nil {
		t.Fatal(err)
	}
	// A write unit fully used for an hour: 3600 request units on demand.
	ratio := 3600 * p.OnDemandWritePerMillion / 1e6 / p.ProvisionedWCUHour
	if math.Abs(ratio-3.46) > 0.01 {
		t.Errorf("on-demand / provisioned for a fully used WCU = %.3f, want ≈3.46", ratio)
	}
	if be := 1 / ratio; math.Abs(be-0.289) > 0.002 {
		t.Errorf("break-even utilization %.3f, want ≈0.29", be)
	}
	readRatio := 3600 * p.OnDemandReadPerMillion / 1e6 / p.ProvisionedRCUHour
	if math.Abs(readRatio-ratio) > 0.01 {
		t.Errorf("read ratio %.3f differs from write ratio %.3f", readRatio, ratio)
	}
}

func TestPricesAllRegions(t *testing.T) {
	want := []string{"ap-northeast-1", "ap-south-1", "ap-southeast-1", "ap-southeast-2", "eu-central-1", "eu-west-1",
		"eu-west-2", "sa-east-1", "us-east-1", "us-east-2", "us-west-1", "us-west-2"}
	if got := strings.Join(Regions(), ","); got != strings.Join(want, ",") {
		t.Fatalf("Regions() = %s", got)
	}
	for _, r := range want {
		for _, class := range []TableClass{Standard, StandardIA} {
			p, err := PricesForClass(r, class)
			if err != nil {
				t.Fatalf("%s %s: %v", r, class, err)
			}
			// Every region keeps the on-demand/provisioned ratio near 3.46.
			ratio := 3600 * p.OnDemandWritePerMillion / 1e6 / p.ProvisionedWCUHour
			if math.Abs(ratio-3.46) > 0.05 {
				t.Errorf("%s %s: write ratio %.3f", r, class, ratio)
			}
		}
	}
	ia, _ := PricesForClass("us-east-1", StandardIA)
	if math.Abs(ia.ProvisionedWCUHour-0.0008125) > 1e-12 {
		t.Errorf("Standard-IA WCU-hour %v, want 0.0008125", ia.ProvisionedWCUHour)
	}
}

func TestPricesForOverridesAndErrors(t *testing.T) {
	full := Prices{OnDemandReadPerMillion: 0.2, OnDemandWritePerMillion: 1, ProvisionedRCUHour: 0.0002, ProvisionedWCUHour: 0.001}
	tests := []struct {
		name      string
		region    string
		class     TableClass
		overrides []PriceOverride
		want      Prices
		wantErr   string
	}{
		{name: "unknown region", region: "eu-south-7", wantErr: `"eu-south-7"`},
		{name: "unknown region, partial override", region: "eu-south-7",
			overrides: []PriceOverride{{Region: "eu-south-7", Prices: Prices{OnDemandReadPerMillion: 1}}}, wantErr: "OnDemandWritePerMillion"},
		{name: "unknown region, full override", region: "eu-south-7",
			overrides: []PriceOverride{{Region: "eu-south-7", Prices: full}}, want: full},
		{name: "partial override keeps list prices", region: "US-EAST-1",
			overrides: []PriceOverride{{Region: "us-east-1", Prices: Prices{ProvisionedWCUHour: 0.0005}}, {Region: "eu-west-1", Prices: full}},
			want:      Prices{OnDemandReadPerMillion: 0.125, OnDemandWritePerMillion: 0.625, ProvisionedRCUHour: 0.00013, ProvisionedWCUHour: 0.0005}},
		{name: "later override wins", region: "us-east-1",
			overrides: []PriceOverride{{Region: "us-east-1", Prices: full}, {Region: "us-east-1", Prices: Prices{OnDemandReadPerMillion: 0.3}}},
			want:      Prices{OnDemandReadPerMillion: 0.3, OnDemandWritePerMillion: 1, ProvisionedRCUHour: 0.0002, ProvisionedWCUHour: 0.001}},
		{name: "class-specific override skipped for other class", region: "us-east-1", class: Standard,
			overrides: []PriceOverride{{Region: "us-east-1", TableClass: StandardIA, Prices: full}},
			want:      Prices{OnDemandReadPerMillion: 0.125, OnDemandWritePerMillion: 0.625, ProvisionedRCUHour: 0.00013, ProvisionedWCUHour: 0.00065}},
		{name: "negative override", region: "us-east-1",
			overrides: []PriceOverride{{Region: "us-east-1", Prices: Prices{ProvisionedRCUHour: -1}}}, wantErr: "ProvisionedRCUHour"},
		{name: "unknown class", region: "us-east-1", class: "GLACIER", wantErr: `"GLACIER"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := PricesForClass(tc.region, tc.class, tc.overrides...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
