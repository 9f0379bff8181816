package metrics

import (
	"math"
	"math/bits"
	"slices"
)

// MannWhitney returns the two-sided p-value of the Mann-Whitney U test that
// samples a and b come from the same distribution — no normality assumed,
// as benchstat's default. Exact for small samples without ties, the normal
// approximation with tie correction otherwise. With fewer than two values
// on a side it returns 1.
func MannWhitney(a, b []float64) float64 {
	n1, n2 := len(a), len(b)
	if n1 < 2 || n2 < 2 {
		return 1
	}
	type obs struct {
		v     float64
		first bool
	}
	all := make([]obs, 0, n1+n2)
	for _, v := range a {
		all = append(all, obs{v, true})
	}
	for _, v := range b {
		all = append(all, obs{v, false})
	}
	slices.SortFunc(all, func(x, y obs) int {
		switch {
		case x.v < y.v:
			return -1
		case x.v > y.v:
			return 1
		}
		return 0
	})
	// Ranks, ties sharing their mean rank.
	var r1, tieTerm float64
	ties := false
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].v == all[i].v {
			j++
		}
		rank := float64(i+j+1) / 2 // mean of ranks i+1..j
		for k := i; k < j; k++ {
			if all[k].first {
				r1 += rank
			}
		}
		if t := float64(j - i); t > 1 {
			ties = true
			tieTerm += t*t*t - t
		}
		i = j
	}
	u1 := r1 - float64(n1*(n1+1))/2
	u := math.Min(u1, float64(n1*n2)-u1)
	if !ties && n1*n2 <= 2500 {
		return exactU(n1, n2, int(math.Round(u)))
	}
	n := float64(n1 + n2)
	mean := float64(n1*n2) / 2
	sd := math.Sqrt(float64(n1*n2) / 12 * (n + 1 - tieTerm/(n*(n-1))))
	if sd == 0 {
		return 1
	}
	z := (mean - u - 0.5) / sd // continuity correction
	if z < 0 {
		return 1
	}
	return math.Min(1, math.Erfc(z/math.Sqrt2))
}

// MannWhitneyMinP returns the smallest p-value MannWhitney can give for
// samples of n1 and n2 values, 2/C(n1+n2, n1), reached when every value of
// one is below every value of the other: 0.100 for 3 against 3, 0.029 for
// 4 against 4. Where it is not below the significance level, the test
// cannot tell a change from chance, however large.
func MannWhitneyMinP(n1, n2 int) float64 {
	if n1 < 2 || n2 < 2 {
		return 1
	}
	c := 1.0 // C(n1+n2, n1), built up one factor at a time
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// exactU returns P(U ≤ u) × 2 for the exact null distribution of U.
func exactU(n1, n2, u int) float64 {
	// counts[i][j][k]: arrangements of i a's and j b's with U = k.
	maxU := n1 * n2
	prev := make([][]float64, n2+1)
	for j := range prev {
		prev[j] = make([]float64, maxU+1)
		prev[j][0] = 1 // i = 0: U is 0
	}
	for i := 1; i <= n1; i++ {
		cur := make([][]float64, n2+1)
		for j := range cur {
			cur[j] = make([]float64, maxU+1)
		}
		cur[0][0] = 1
		for j := 1; j <= n2; j++ {
			for k := 0; k <= i*j; k++ {
				// The largest element is an a (it beats all j b's) or a b.
				if k >= j {
					cur[j][k] += prev[j][k-j]
				}
				cur[j][k] += cur[j-1][k]
			}
		}
		prev = cur
	}
	var le, total float64
	for k, c := range prev[n2] {
		total += c
		if k <= u {
			le += c
		}
	}
	return math.Min(1, 2*le/total)
}

// quantiles returns what Median and Percentile, for each p of ps, would
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
