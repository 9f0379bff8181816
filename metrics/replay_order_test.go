package metrics

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestReplayByStream checks byStream against the stable sort it stands for,
// on items in runs of a stream, out of order across tables, with ties.
func TestReplayByStream(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		g := &replayGraph{}
		var at int64
		for range n {
			if r.IntN(5) == 0 {
				at = r.Int64N(1000) // a table after the one before: starts again
			}
			at += r.Int64N(3) // ties
			g.items = append(g.items, rItem{stream: int64(r.IntN(1 + n%7)), recStart: at})
		}
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int {
			x, y := &g.items[a], &g.items[b]
			return cmp.Or(cmp.Compare(x.stream, y.stream), cmp.Compare(x.recStart, y.recStart))
		})
		if got := g.byStream(); !slices.Equal(got, want) {
			t.Fatalf("%d items: byStream %v, want %v", n, got, want)
		}
	}
}
