package ttl

import (
	"math"
	"testing"
)

func TestDistributions(t *testing.T) {
	near := func(t *testing.T, name string, got, want, tol float64) {
		t.Helper()
		if math.Abs(got-want) > tol {
			t.Errorf("%s = %.10g, want %.10g", name, got, want)
		}
	}
	// Reference values from standard tables.
	near(t, "z(0.975)", normalQuantile(0.975), 1.959963985, 1e-8)
	near(t, "I_0.5(2,3)", regIncBeta(0.5, 2, 3), 0.6875, 1e-12)
	near(t, "I_0.2(1,1)", regIncBeta(0.2, 1, 1), 0.2, 1e-12)
	for _, tc := range []struct{ df, want float64 }{
		{1, 12.70620474}, {2, 4.30265273}, {5, 2.57058184}, {10, 2.22813885},
		{30, 2.04227246}, {120, 1.97993041}, {1e5, 1.959987708},
	} {
		near(t, "t(0.975)", tQuantile(0.975, tc.df), tc.want, 1e-6)
	}
	lo, hi := clopperPearson(0, 10, 0.05)
	near(t, "CP(0,10) lo", lo, 0, 0)
	near(t, "CP(0,10) hi", hi, 1-math.Pow(0.025, 0.1), 1e-9)
	lo, hi = clopperPearson(5, 10, 0.05)
	near(t, "CP(5,10) lo", lo, 0.187086028, 1e-8)
	near(t, "CP(5,10) hi", hi, 0.812913972, 1e-8)
	lo, hi = clopperPearson(10, 10, 0.05)
	near(t, "CP(10,10) lo", lo, math.Pow(0.025, 0.1), 1e-9)
	near(t, "CP(10,10) hi", hi, 1, 0)
	lo, hi = clopperPearson(1, 1500, 0.05)
	near(t, "CP(1,1500) lo", lo, 1-math.Pow(0.975, 1.0/1500), 1e-12)
	// Upper bound: P(X <= 1 | n=1500, p=hi) = 0.025.
	near(t, "P(X<=1|hi)", math.Pow(1-hi, 1500)+1500*hi*math.Pow(1-hi, 1499), 0.025, 1e-9)
	// Real-valued trials (effective sample sizes) and extreme shapes.
	lo, hi = clopperPearson(0.37, 12.5, 0.05)
	if !(lo > 0 && lo < 0.37/12.5 && hi > 0.37/12.5 && hi < 1) {
		t.Errorf("CP(0.37,12.5) = [%g, %g]", lo, hi)
	}
	near(t, "I_1e-6(0.5,1e6)", regIncBeta(1e-6, 0.5, 1e6), 0.8427007929, 1e-6) // erf(1)
}
