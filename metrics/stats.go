package metrics

import (
	"golang.org/x/perf/benchmath"
	"math"
	"math/bits"
	"slices"
)

// mannWhitney returns the two-sided p-value of the Mann-Whitney U test that
// samples a and b come from the same distribution — no normality assumed:
// benchstat's own test (benchmath.AssumeNothing), exact for small samples
// with or without ties, the normal approximation for large ones. It is
// never below mannWhitneyMinP, the exact minimum for these sizes, which an
// approximation with ties could undercut. With fewer than two values on a
// side, or a test that cannot run (every value equal), it returns 1.
func mannWhitney(a, b []float64) float64 {
	if len(a) < 2 || len(b) < 2 {
		return 1
	}
	th := &benchmath.DefaultThresholds
	// NewSample sorts its values in place: clones keep the caller's order.
	c := benchmath.AssumeNothing.Compare(benchmath.NewSample(slices.Clone(a), th), benchmath.NewSample(slices.Clone(b), th))
	if len(c.Warnings) > 0 && c.P == 1 {
		return 1
	}
	return math.Min(1, math.Max(c.P, mannWhitneyMinP(len(a), len(b))))
}

// mannWhitneyMinP returns the smallest p-value mannWhitney can give for
// samples of n1 and n2 values, 2/C(n1+n2, n1), reached when every value of
// one is below every value of the other: 0.100 for 3 against 3, 0.029 for
// 4 against 4. Where it is not below the significance level, the test
// cannot tell a change from chance, however large.
func mannWhitneyMinP(n1, n2 int) float64 {
	if n1 < 2 || n2 < 2 {
		return 1
	}
	c := 1.0 // C(n1+n2, n1), built up one factor at a time
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// quantiles returns what Median and percentile, for each p of ps, would
// return for values sorted, without sorting them: each value is found by
// selection, in expected linear time. Sorting the kernel durations and
// launch latencies was about half the CPU time of a summary of the
// generated trace (BenchmarkSummarize). values may be reordered.
func quantiles(values []int64, ps ...float64) (median float64, pct []int64) {
	n := len(values)
	pct = make([]int64, len(ps))
	if n == 0 {
		return 0, pct
	}
	// The ranks wanted, ascending: the middle one or two, and each p's.
	ranks := []int{(n - 1) / 2, n / 2}
	for _, p := range ps {
		ranks = append(ranks, percentileRank(n, p))
	}
	at := rankValues(values, ranks)
	median = Median([]int64{at[0], at[1]}) // the middle one or two
	copy(pct, at[2:])
	return median, pct
}

// rankValues returns the values of the given ranks (0-based, as in a sort
// of values), reordering values. Large inputs are counted into buckets by
// their leading bits first, in three passes that move nothing, and only
// the buckets holding a rank are selected in; small ones go straight to
// selection.
func rankValues(values []int64, ranks []int) []int64 {
	out := make([]int64, len(ranks))
	const buckets = 1 << 12
	if len(values) < 8*buckets {
		ranked := slices.Clone(ranks)
		slices.Sort(ranked)
		lo := 0
		for _, k := range slices.Compact(ranked) {
			// None of values[:lo] is greater than any of the rest, and
			// the ranks found there stay in place: the next is sought
			// in the rest.
			selectNth(values[lo:], k-lo)
			lo = k + 1
		}
		for i, k := range ranks {
			out[i] = values[k]
		}
		return out
	}
	// As unsigned numbers of the same order: the sign bit flipped.
	key := func(v int64) uint64 { return uint64(v) ^ 1<<63 }
	lo, hi := key(values[0]), key(values[0])
	for _, v := range values {
		lo, hi = min(lo, key(v)), max(hi, key(v))
	}
	shift := max(bits.Len64(hi-lo)-12, 0)
	var count [buckets]int
	for _, v := range values {
		count[(key(v)-lo)>>shift]++
	}
	// The bucket of each rank, and how many values come before it.
	bucketOf, before := make([]int, len(ranks)), make([]int, len(ranks))
	for i, k := range ranks {
		n := 0
		for b, c := range count {
			if n+c > k {
				bucketOf[i], before[i] = b, n
				break
			}
			n += c
		}
	}
	// The values of those buckets, each bucket's once: slot[b] is 1 + the
	// index of bucket b's values in sel, or 0.
	var slot [buckets]int8
	var sel [][]int64
	for _, b := range bucketOf {
		if slot[b] == 0 {
			sel = append(sel, make([]int64, 0, count[b]))
			slot[b] = int8(len(sel))
		}
	}
	for _, v := range values {
		if j := slot[(key(v)-lo)>>shift]; j != 0 {
			sel[j-1] = append(sel[j-1], v)
		}
	}
	for i, k := range ranks {
		vs := sel[slot[bucketOf[i]]-1]
		selectNth(vs, k-before[i])
		out[i] = vs[k-before[i]]
	}
	return out
}

// selectNth reorders s so that s[k] holds what a sort would put there,
// with none greater before it and none smaller after it: quickselect,
// with a three-way partition for the repeated values durations have, and
// a sort when partitions keep coming out lopsided (adversarial input), so
// that it is never worse than a sort.
func selectNth(s []int64, k int) {
	for budget := 2 * bits.Len(uint(len(s))); len(s) > 16; budget-- {
		if budget == 0 {
			slices.Sort(s)
			return
		}
		lt, gt := partition3(s, median3(s[0], s[len(s)/2], s[len(s)-1]))
		switch {
		case k < lt:
			s = s[:lt]
		case k >= gt:
			s, k = s[gt:], k-gt
		default:
			return // s[k] equals the pivot, in place
		}
	}
	slices.Sort(s)
}

// partition3 reorders s into the values less than p, those equal to it,
// and those greater, and returns where the equal ones begin and end.
func partition3(s []int64, p int64) (lt, gt int) {
	lt, gt = 0, len(s)
	for i := 0; i < gt; {
		switch v := s[i]; {
		case v < p:
			s[i], s[lt] = s[lt], v
			lt++
			i++
		case v > p:
			gt--
			s[i], s[gt] = s[gt], v
		default:
			i++
		}
	}
	return lt, gt
}

func median3(a, b, c int64) int64 {
	return max(min(a, b), min(max(a, b), c))
}
