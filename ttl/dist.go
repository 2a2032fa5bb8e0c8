package ttl

import "math"

// Distribution functions needed by the interval estimator, written against
// the standard library only.

// normalQuantile returns the q-quantile of the standard normal distribution.
func normalQuantile(q float64) float64 {
	return math.Sqrt2 * math.Erfinv(2*q-1)
}

// regIncBeta returns the regularised incomplete beta function I_x(a, b) for
// a, b > 0 and 0 <= x <= 1.
func regIncBeta(x, a, b float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	// The continued fraction converges fast for x < (a+1)/(a+b+2); use the
	// symmetry I_x(a,b) = 1 - I_{1-x}(b,a) otherwise.
	if x > (a+1)/(a+b+2) {
		return 1 - regIncBeta(1-x, b, a)
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(a*math.Log(x)+b*math.Log1p(-x)-(la+lb-lab)) / a
	return front * betaContinuedFraction(x, a, b)
}

// betaContinuedFraction evaluates the continued fraction of I_x(a, b) by the
// modified Lentz method: 1/(1+ d1/(1+ d2/(1+ ...))) with
// d_{2m+1} = -(a+m)(a+b+m)x / ((a+2m)(a+2m+1)) and
// d_{2m} = m(b-m)x / ((a+2m-1)(a+2m)).
func betaContinuedFraction(x, a, b float64) float64 {
	const (
		tiny    = 1e-300
		epsilon = 1e-15
	)
	f, c, d := tiny, tiny, 0.0
	for i := 0; i <= 10000; i++ {
		var num float64
		switch m := float64(i / 2); {
		case i == 0:
			num = 1
		case i%2 == 0:
			num = m * (b - m) * x / ((a + 2*m - 1) * (a + 2*m))
		default:
			num = -(a + m) * (a + b + m) * x / ((a + 2*m) * (a + 2*m + 1))
		}
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		d = 1 / d
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		delta := c * d
		f *= delta
		if math.Abs(delta-1) < epsilon {
			break
		}
	}
	return f
}

// betaQuantile returns x with I_x(a, b) = q, by bisection (the function is
// monotone; 200 halvings reach full double precision even near 0).
func betaQuantile(q, a, b float64) float64 {
	switch {
	case q <= 0:
		return 0
	case q >= 1:
		return 1
	}
	lo, hi := 0.0, 1.0
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if regIncBeta(mid, a, b) < q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

// tQuantile returns the q-quantile (q > 0.5) of Student's t distribution
// with df > 0 degrees of freedom.
func tQuantile(q, df float64) float64 {
	z := normalQuantile(q)
	if df > 1e4 {
		// Cornish–Fisher expansion; error far below 1e-9 at this df.
		z3, z5 := z*z*z, z*z*z*z*z
		return z + (z3+z)/(4*df) + (5*z5+16*z3+3*z)/(96*df*df)
	}
	// P(T > t) = I_{df/(df+t²)}(df/2, 1/2) / 2.
	x := betaQuantile(2*(1-q), df/2, 0.5)
	return math.Sqrt(df * (1 - x) / x)
}

// clopperPearson returns the exact binomial interval for x successes in n
// trials at confidence 1-alpha, extended to real x and n (0 <= x <= n).
func clopperPearson(x, n, alpha float64) (lo, hi float64) {
	lo, hi = 0, 1
	if x > 0 {
		lo = betaQuantile(alpha/2, x, n-x+1)
	}
	if x < n {
		hi = betaQuantile(1-alpha/2, x+1, n-x)
	}
	return lo, hi
}
