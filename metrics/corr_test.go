package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCorrTable checks the table against a map, on dense and sparse ids,
// one process and several, extreme ids and keys never put. The sparse
// cases hold ids spread evenly, repeated in a period as the repeat
// generator writes them (a few ids in each bucket), and clustered between
// extremes (all in one bucket, searched by halves).
func TestCorrTable(t *testing.T) {
	dense := func(r *rand.Rand) int64 { return 1 + r.Int64N(500) }
	gappy := func(r *rand.Rand) int64 { return 1 + r.Int64N(300*6) } // as in real traces
	sparse := func(r *rand.Rand) int64 { return r.Int64() - r.Int64() }
	extreme := func(r *rand.Rand) int64 {
		return []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64 - 1, math.MaxInt64}[r.IntN(7)]
	}
	// HTA's trace_compare/base: 21 recorded ids among 112,119, repeated.
	repeated := func(r *rand.Rand) int64 {
		return 1930403 + 112119*r.Int64N(200) + []int64{0, 1, 2, 5, 7, 9, 60000, 60002, 112110, 112118}[r.IntN(10)]
	}
	clustered := func(r *rand.Rand) int64 {
		if r.IntN(100) == 0 {
			return extreme(r)
		}
		return -1000 + r.Int64N(2000)
	}
	for _, tc := range []struct {
		name  string
		pids  int
		id    func(*rand.Rand) int64
		dense bool
		// crowded: a sparse process has a bucket of more than 8 ids,
		// searched by halves
		crowded bool
	}{
		{"dense", 1, dense, true, false},
		{"dense, 3 processes", 3, dense, true, false},
		{"one id in six", 1, gappy, true, false},
		{"dense at the top", 2, func(r *rand.Rand) int64 { return math.MaxInt64 - r.Int64N(500) }, true, false},
		{"dense at the bottom", 2, func(r *rand.Rand) int64 { return math.MinInt64 + r.Int64N(500) }, true, false},
		{"sparse", 1, sparse, false, false},
		{"sparse, 3 processes", 3, sparse, false, false},
		{"sparse negative", 1, func(r *rand.Rand) int64 { return -r.Int64N(1 << 40) }, false, false},
		{"sparse huge", 1, func(r *rand.Rand) int64 { return math.MaxInt64 - r.Int64N(1<<40) }, false, false},
		{"repeated", 1, repeated, false, false},
		{"clustered", 2, clustered, false, true},
		{"extreme", 2, extreme, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			var keys []corrKey
			for range 3000 {
				keys = append(keys, corrKey{int64(r.IntN(tc.pids)), tc.id(r)})
			}
			c := newCorrTable[int](slices.Values(keys))
			for _, p := range c.procs {
				if got := p.ids != nil; got != tc.dense {
					t.Errorf("process %d: dense = %v, want %v", p.pid, got, tc.dense)
				}
				crowded := false
				for b := range len(p.buckets) - 1 {
					crowded = crowded || p.buckets[b+1]-p.buckets[b] > 8
				}
				if crowded != tc.crowded {
					t.Errorf("process %d: a bucket of more than 8 ids = %v, want %v", p.pid, crowded, tc.crowded)
				}
			}
			want := map[corrKey]int{}
			for i, k := range keys {
				v, existed := c.put(k)
				_, was := want[k]
				if existed != was {
					t.Fatalf("put(%v) existed = %v, want %v", k, existed, was)
				}
				*v += i
				want[k] += i
			}
			probes := slices.Clone(keys)
			for _, k := range keys {
				probes = append(probes, corrKey{k.pid, k.corr - 1}, corrKey{k.pid, k.corr + 1}) // wrapping at the extremes
			}
			for range 3000 {
				probes = append(probes, corrKey{int64(r.IntN(tc.pids + 1)), tc.id(r)}, corrKey{0, extreme(r)})
			}
			for _, k := range probes {
				v := c.get(k)
				w, ok := want[k]
				switch {
				case ok != (v != nil):
					t.Fatalf("get(%v) = %v, want found = %v", k, v, ok)
				case ok && *v != w:
					t.Fatalf("get(%v) = %d, want %d", k, *v, w)
				}
			}
		})
	}
}
