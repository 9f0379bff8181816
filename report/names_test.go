package report

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestShortNames checks that shortened names fit, stay apart when the
// names differ, and are cut at the end when that keeps them apart.
func TestShortNames(t *testing.T) {
	self := func(s string) string { return s }
	add := func(typ string) string {
		return "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<" + typ +
			">, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<" + typ + ">, at::detail::Array<char*, 3>)"
	}
	// Two of ROCm's Tensile kernels of vllm_decode_mi300x_hipgraph, alike
	// but for one field deep inside, and for another further on.
	tensile := func(nta, nepbs string) string {
		return "Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT32x32x256_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_DTVA0_DTVB0_EPS0_FDSI0_GRPM1_GRVWA8_GRVWB8_GSUAMB_GLS0_ISA942_IU1_K1_LBSPPA512_LBSPPB512_LBSPPM0_LPA16_LPB16_LPM0_LRVW8_LWPMn1_MIAV0_MIWT1_1_MO40_NTn1_NTA" +
			nta + "_NTB0_NTC0_NTD4_NTM0_NEPBS" + nepbs + "_NLCA1_NLCB1_ONLL1_PGR2_PLR1_PKA1_SIA3_SS1_SPO0_SRVW0_SSO0_SVW1_SK0_SKXCCM0_TLDS1_ULSGRO0_USL1_UIOFGRO0_USFGROn1_VSn1_VWA1_VWB1_WSGRA0_WSGRB0_WS64_WG32_8_1"
	}
	for _, c := range []struct {
		names []string
		n     int
		want  []string
	}{
		{[]string{"aten::mm", "ncclKernel\n\tAllReduce"}, 80, []string{"aten::mm", "ncclKernel  AllReduce"}},
		{[]string{add("int"), add("float"), "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >"}, 70,
			[]string{
				"void at::native::vec…Functor_add<int>, at::detail::Array<char*, 3> >(…",
				"void at::native::vec…Functor_add<float>, at::detail::Array<char*, 3> …",
				"void at::native::vectorized_elementwise_kernel<4, at::native::FillFun…",
			}},
		{[]string{tensile("0", "8"), tensile("4", "16")}, 80, []string{
			"Cijk_Alik_Bljk_BBS_B…O40_NTn1_NTA0_NTB0_NTC0_NTD4_NTM0_NEPBS8_NLCA1_NLCB1_ONLL1…",
			"Cijk_Alik_Bljk_BBS_B…O40_NTn1_NTA4_NTB0_NTC0_NTD4_NTM0_NEPBS16_NLCA1_NLCB1_ONLL…",
		}},
		// Alike up to their last runes: the window ends with them.
		{[]string{strings.Repeat("x", 100) + "_a", strings.Repeat("x", 100) + "_b"}, 30, []string{
			"xxxxxxxxxx…xxxxxxxxxxxxxxxxx_a", "xxxxxxxxxx…xxxxxxxxxxxxxxxxx_b",
		}},
		// A name that fits is shown whole, even when a cut name shows the same.
		{[]string{strings.Repeat("x", 29) + "…", strings.Repeat("x", 100) + "_a", strings.Repeat("x", 100) + "_b"}, 30, []string{
			strings.Repeat("x", 29) + "…", "xxxxxxxxxx…xxxxxxxxxxxxxxxxx_a", "xxxxxxxxxx…xxxxxxxxxxxxxxxxx_b",
		}},
	} {
		got := shortNames(c.names, self, c.n)
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("shortNames(…, %d)[%d] = %q, want %q", c.n, i, got[i], c.want[i])
			}
			if utf8.RuneCountInString(got[i]) > c.n {
				t.Errorf("%q is longer than %d runes", got[i], c.n)
			}
		}
	}
}

// TestShortNamesApart checks that names built from the same fields, as
// Tensile's are, some of them changed anywhere, stay apart when shortened.
func TestShortNamesApart(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		fields := make([]string, 40)
		for i := range fields {
			fields[i] = fmt.Sprintf("F%d_%d", i, rng.IntN(3))
		}
		seen := map[string]bool{}
		var names []string
		for range 2 + rng.IntN(8) {
			f := slices.Clone(fields)
			for range 1 + rng.IntN(2) {
				f[rng.IntN(len(f))] = fmt.Sprintf("X%d", rng.IntN(4))
			}
			if s := strings.Join(f, "_"); !seen[s] {
				seen[s] = true
				names = append(names, s)
			}
		}
		n := 40 + rng.IntN(50)
		got := shortNames(names, func(s string) string { return s }, n)
		for i := range got {
			for j := range i {
				if got[i] == got[j] {
					t.Fatalf("round %d, n %d: %q and %q both shorten to %q", round, n, names[i], names[j], got[i])
				}
			}
		}
	}
}

func TestStyleName(t *testing.T) {
	for _, c := range []struct{ name, short, family string }{
		{"void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, at::detail::Array<char*, 1>)",
			"vectorized_elementwise_kernel<…>(…)", "at::native::vectorized_elementwise_kernel"},
		{"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
			"cunn_SoftMaxForward<…>(…)", "at::native::(anonymous namespace)::cunn_SoftMaxForward"},
		{"triton_poi_fused_add_0", "triton_poi_fused_add_0", "triton_poi_fused_add"},
		{"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64", "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64"},
		// Itanium-mangled, as some libraries' kernels are recorded.
		{"_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEEEEviT0_",
			"vectorized_elementwise_kernel<…>(…)", "at::native::vectorized_elementwise_kernel"},
		{"_Zbroken", "_Zbroken", "_Zbroken"},
	} {
		if got := styleName(c.name, NamesShort); got != c.short {
			t.Errorf("short %q = %q, want %q", c.name, got, c.short)
		}
		if got := styleName(c.name, NamesFamily); got != c.family {
			t.Errorf("family %q = %q, want %q", c.name, got, c.family)
		}
		if got := styleName(c.name, NamesFull); got != c.name {
			t.Errorf("full %q = %q", c.name, got)
		}
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain µs 名前":            "plain µs 名前",
		"a\x1b[2Jb":              `a\x1b[2Jb`,
		"r\u202eevil\u2066x":     `r\u202eevil\u2066x`,
		"csi\u009b1m":            `csi\u009b1m`,
		"nl\nrow\rback\bdel\x7f": `nl\nrow\rback\bdel\x7f`,
		"bad\xffutf8":            "bad\uFFFDutf8",
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}
