package capacity

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestAutoScalingSettingsValidate(t *testing.T) {
	mod := func(f func(*AutoScalingSettings)) AutoScalingSettings {
		a := DefaultAutoScaling()
		f(&a)
		return a
	}
	tests := []struct {
		name    string
		a       AutoScalingSettings
		wantErr string
	}{
		{"defaults", DefaultAutoScaling(), ""},
		{"target too high", mod(func(a *AutoScalingSettings) { a.Target = 0.95 }), "Target"},
		{"target too low", mod(func(a *AutoScalingSettings) { a.Target = 0.1 }), "Target"},
		{"target NaN", mod(func(a *AutoScalingSettings) { a.Target = math.NaN() }), "Target"},
		{"min zero", mod(func(a *AutoScalingSettings) { a.Min = 0 }), "Min"},
		{"max below min", mod(func(a *AutoScalingSettings) { a.Max = 2 }), "Max"},
		{"max infinite", mod(func(a *AutoScalingSettings) { a.Max = math.Inf(1) }), "Max"},
		{"negative scale-out cooldown", mod(func(a *AutoScalingSettings) { a.ScaleOutCooldown = -time.Second }), "ScaleOutCooldown"},
		{"negative scale-in cooldown", mod(func(a *AutoScalingSettings) { a.ScaleInCooldown = -time.Second }), "ScaleInCooldown"},
		{"negative delay", mod(func(a *AutoScalingSettings) { a.ScaleOutDelay = -time.Minute }), "ScaleOutDelay"},
		{"negative initial", mod(func(a *AutoScalingSettings) { a.Initial = -1 }), "Initial"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.a.Validate()
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), "AutoScalingSettings."+tc.wantErr) {
				t.Fatalf("error %v, want one naming %s", err, tc.wantErr)
			}
		})
	}
}

func TestEvaluateErrorsNameTheField(t *testing.T) {
	p, _ := PricesFor("us-east-1")
	good := trace(120, flat(10), flat(10))
	bad := DefaultAutoScaling()
	bad.Target = 1.2
	tests := []struct {
		name    string
		tr      Trace
		mode    Mode
		s       Settings
		p       Prices
		o       Options
		wantErr string
	}{
		{"mode", good, "ON_DEMAND", Settings{}, p, Options{}, `"ON_DEMAND"`},
		{"price", good, OnDemand, Settings{}, Prices{OnDemandReadPerMillion: 1}, Options{}, "Prices.OnDemandWritePerMillion"},
		{"negative minute", Trace{Start: traceStart, Read: append(perMinute(100, flat(1)), -1)}, OnDemand, Settings{}, p, Options{}, "Trace.Read[100]"},
		{"NaN minute", Trace{Start: traceStart, Write: []float64{math.NaN()}}, OnDemand, Settings{}, p, Options{}, "Trace.Write[0]"},
		{"length mismatch", Trace{Start: traceStart, Read: make([]float64, 90), Write: make([]float64, 80)}, OnDemand, Settings{}, p, Options{}, "Trace.Write"},
		{"too short", trace(59, flat(1), flat(1)), OnDemand, Settings{}, p, Options{}, "60"},
		{"empty", Trace{}, OnDemand, Settings{}, p, Options{}, "empty"},
		{"read policy", good, OnDemand, Settings{Read: Provisioning{AutoScaling: &bad}}, p, Options{}, "Settings.Read.AutoScaling.Target"},
		{"write fixed", good, Provisioned, Settings{Write: Provisioning{Fixed: -3}}, p, Options{}, "Settings.Write.Fixed"},
		{"default policy", good, OnDemand, Settings{}, p, Options{DefaultAutoScaling: &bad}, "Options.DefaultAutoScaling.Target"},
		{"option NaN", good, OnDemand, Settings{}, p, Options{MinMonthlySaving: math.NaN()}, "Options.MinMonthlySaving"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Evaluate(tc.tr, tc.mode, tc.s, tc.p, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one naming %s", err, tc.wantErr)
			}
		})
	}
}
