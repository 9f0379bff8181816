package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestMannWhitney(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
		want float64
	}{
		{"separated 2v2", []float64{1, 2}, []float64{3, 4}, 1.0 / 3},                      // the smallest p 2 vs 2 can give
		{"separated 5v5", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 2.0 / 252}, // 2/C(10,5)
		{"identical", []float64{1, 2, 3}, []float64{1, 2, 3}, 1},
		{"too few", []float64{1}, []float64{2, 3}, 1},
	}
	for _, tt := range tests {
		if got := mannWhitney(tt.a, tt.b); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: p = %v, want %v", tt.name, got, tt.want)
		}
	}
	for _, n := range [][2]int{{2, 2}, {3, 3}, {4, 4}, {2, 8}, {5, 5}, {1, 9}} {
		a, b := make([]float64, n[0]), make([]float64, n[1])
		for i := range a {
			a[i] = float64(i)
		}
		for i := range b {
			b[i] = float64(100 + i)
		}
		if got, want := mannWhitneyMinP(n[0], n[1]), mannWhitney(a, b); math.Abs(got-want) > 1e-12 {
			t.Errorf("mannWhitneyMinP(%d, %d) = %v, want the p of separated samples, %v", n[0], n[1], got, want)
		}
	}
	// Large separated samples with ties: normal approximation, tiny p.
	var a, b []float64
	for i := range 50 {
		a = append(a, float64(i/2))
		b = append(b, float64(100+i/2))
	}
	if p := mannWhitney(a, b); p > 1e-10 {
		t.Errorf("large separated: p = %v", p)
	}
}

func TestFamily(t *testing.T) {
	tests := map[string]string{
		"triton_poi_fused_add_0":               "triton_poi_fused_add",
		"triton_red_fused__softmax_12":         "triton_red_fused__softmax",
		"triton_per_fused_native_layer_norm_0": "triton_per_fused_native_layer_norm",
		"triton_tem_fused_mm":                  "triton_tem_fused_mm",
		"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)": "at::native::vectorized_elementwise_kernel",
		"void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int, int)":                                                                                                 "cudnn::detail::dgrad_engine",
		"volta_sgemm_64x64_nt":                                 "volta_sgemm_64x64_nt",
		"ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)": "ncclKernel_AllReduce_RING_LL_Sum_float",
		"void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::OpaqueType<2u>, unsigned int, 4, 64, 64>(int)": "at::native::(anonymous namespace)::CatArrayBatchedCopy",
		"void (anonymous namespace)::softmax_warp_forward<float, float, float, 7, false>(float*)":                                                      "(anonymous namespace)::softmax_warp_forward",
		"(anonymous namespace)::kernel": "(anonymous namespace)::kernel",
		// cuBLAS gemv: a return type before the name, not the family.
		"std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, true, true, false, 7, false, cublasGemvParamsEx<int, float> >(cublasGemvParamsEx<int, float>)": "internal::gemvx::kernel",
	}
	for in, want := range tests {
		if got := Family(in); got != want {
			t.Errorf("Family(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestQuantiles holds quantiles, which selects, equal to Median and
// percentile of the sorted values, on inputs of every shape: few and many
// distinct values, sorted, reversed, and organ-pipe (which, like the
// arrays earlier selections leave, makes some partitions lopsided enough
// to fall back to a sort).
func TestQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := []struct {
		name string
		gen  func(i, n int) int64
	}{
		{"wide", func(int, int) int64 { return rng.Int64N(1 << 62) }},
		{"repeated", func(int, int) int64 { return rng.Int64N(5) }},
		{"equal", func(int, int) int64 { return 7 }},
		{"sorted", func(i, n int) int64 { return int64(i) }},
		{"reversed", func(i, n int) int64 { return int64(n - i) }},
		{"organ", func(i, n int) int64 { return int64(min(i, n-i)) }},
		{"negative", func(int, int) int64 { return rng.Int64N(1000) - 500 }},
		{"extremes", func(i, n int) int64 { return [...]int64{-1 << 62, 1 << 62, 0}[i%3] }},
	}
	ps := []float64{0, 1, 50, 90, 99, 100}
	for _, sh := range shapes {
		name, gen := sh.name, sh.gen
		for _, n := range []int{0, 1, 2, 3, 16, 17, 100, 1001, 50000} {
			values := make([]int64, n)
			for i := range values {
				values[i] = gen(i, n)
			}
			sorted := slices.Sorted(slices.Values(values))
			median, pct := quantiles(values, ps...)
			if want := Median(sorted); median != want {
				t.Errorf("%s, n = %d: median %v, want %v", name, n, median, want)
			}
			for i, p := range ps {
				if want := percentile(sorted, p); pct[i] != want {
					t.Errorf("%s, n = %d: p%v %d, want %d", name, n, p, pct[i], want)
				}
			}
			slices.Sort(values)
			if !slices.Equal(values, sorted) {
				t.Errorf("%s, n = %d: values lost or changed", name, n)
			}
		}
	}
}

// TestRankValues: the bucketed selection of large inputs gives what a sort
// gives, for values of every sign and spread, with repeats and extremes.
func TestRankValues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func() int64{
		"spread":   func() int64 { return r.Int64N(1 << 40) },
		"signed":   func() int64 { return r.Int64N(2e6) - 1e6 },
		"repeats":  func() int64 { return r.Int64N(5) },
		"one":      func() int64 { return 7 },
		"extremes": func() int64 { return []int64{math.MinInt64, math.MaxInt64, 0, -1, 1}[r.IntN(5)] },
		"skewed":   func() int64 { return int64(math.Exp(r.Float64() * 30)) },
	}
	for name, gen := range gens {
		for _, n := range []int{1, 2, 100, 40000, 100001} {
			vs := make([]int64, n)
			for i := range vs {
				vs[i] = gen()
			}
			sorted := slices.Sorted(slices.Values(vs))
			ranks := []int{(n - 1) / 2, n / 2, n - 1, 0, n * 9 / 10}
			got := rankValues(slices.Clone(vs), ranks)
			for i, k := range ranks {
				if got[i] != sorted[k] {
					t.Errorf("%s n=%d rank %d: %d, want %d", name, n, k, got[i], sorted[k])
				}
			}
		}
	}
}

// TestMannWhitneyTiesExact: with ties, the p-value is benchstat's exact
// one for small samples, never below the exact minimum for the sizes
// (2/C(n1+n2, n1), benchmath's uTestMinP table): 6 against 6 separated
// but tied within each side is 2/924 = 0.0021645…, where the normal
// approximation said 0.001; 2 against 2 cannot go under 1/3.
func TestMannWhitneyTiesExact(t *testing.T) {
	tests := []struct {
		name string
		a, b []float64
		want float64
	}{
		{"6v6 separated, ties within", []float64{1, 1, 2, 2, 3, 3}, []float64{10, 10, 11, 11, 12, 12}, 0.0021645021645021645},
		{"2v2 separated, ties within", []float64{5, 5}, []float64{9, 9}, 1.0 / 3},
		{"8v8 separated", []float64{1, 2, 3, 4, 5, 6, 7, 8}, []float64{11, 12, 13, 14, 15, 16, 17, 18}, 0.0001554001554001554},
		{"all equal", []float64{4, 4, 4}, []float64{4, 4, 4}, 1},
	}
	for _, tt := range tests {
		got := mannWhitney(tt.a, tt.b)
		if math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: p = %v, want %v", tt.name, got, tt.want)
		}
		if got < mannWhitneyMinP(len(tt.a), len(tt.b)) {
			t.Errorf("%s: p = %v, under the exact minimum %v", tt.name, got, mannWhitneyMinP(len(tt.a), len(tt.b)))
		}
	}
}
