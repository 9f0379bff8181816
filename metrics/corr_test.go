package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCorrTable checks the table against a map, on dense and sparse ids,
// one process and several, extreme ids and keys never put.
func TestCorrTable(t *testing.T) {
	dense := func(r *rand.Rand) int64 { return 1 + r.Int64N(500) }
	gappy := func(r *rand.Rand) int64 { return 1 + r.Int64N(300*6) } // as in real traces
	sparse := func(r *rand.Rand) int64 { return r.Int64() - r.Int64() }
	extreme := func(r *rand.Rand) int64 {
		return []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64 - 1, math.MaxInt64}[r.IntN(7)]
	}
	for _, tc := range []struct {
		name  string
		pids  int
		id    func(*rand.Rand) int64
		dense bool
	}{
		{"dense", 1, dense, true},
		{"dense, 3 processes", 3, dense, true},
		{"one id in six", 1, gappy, true},
		{"dense at the top", 2, func(r *rand.Rand) int64 { return math.MaxInt64 - r.Int64N(500) }, true},
		{"dense at the bottom", 2, func(r *rand.Rand) int64 { return math.MinInt64 + r.Int64N(500) }, true},
		{"sparse", 1, sparse, false},
		{"extreme", 2, extreme, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			var keys []corrKey
			for range 300 {
				keys = append(keys, corrKey{int64(r.IntN(tc.pids)), tc.id(r)})
			}
			c := newCorrTable[int](slices.Values(keys))
			for _, p := range c.procs {
				if got := p.sparse == nil; got != tc.dense {
					t.Errorf("process %d: dense = %v, want %v", p.pid, got, tc.dense)
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
			for range 300 {
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
