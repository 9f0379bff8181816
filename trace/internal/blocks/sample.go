package blocks

import (
	"io"
	"math/rand/v2"
	"sync"
)

// Sampling, for sizing tables before a read.
const (
	sampleBytes      = 64 << 10 // a sample
	sampleEvery      = 4 << 20  // a sample for every sampleEvery bytes of elements,
	sampleMinSamples = 64       // but at least sampleMinSamples
	sampleMaxSamples = 1024     // and at most sampleMaxSamples
)

// Sample estimates what the elements in bytes [from, end) of ra hold:
// measure counts what a part holds (kinds of records, say), and Sample
// returns those counts estimated for the whole range. The bytes are cut
// into equal stretches, one for every sampleEvery bytes (sampleMinSamples
// to sampleMaxSamples of them), and a sample of sampleBytes (or the whole
// stretch, if shorter) is decoded at a random place in each: its counts
// per byte stand for its stretch. Samples at the same place in every
// stretch could all fall in one section of a file that repeats with a
// period near the stretch's length (a profile of several steps written
// one after another). A sample's first element is guessed as a block's
// is; a wrong guess costs accuracy, never records, for the samples'
// parts are only measured. Cutting samples short favours short elements,
// by about one a sample, hence samples of 64 KB. measure may be called
// from several goroutines at once, and owns the part it is given.
func Sample[P Part](ra io.ReaderAt, from, end int64, budget *Budget, newDecoder func() Decoder[P], measure func(P) []int) []float64 {
	samples := min(max((end-from)/sampleEvery, sampleMinSamples), sampleMaxSamples)
	stride := (end - from) / samples
	size := min(sampleBytes, stride)
	offs := make([]int64, samples)
	rnd := rand.New(rand.NewPCG(1, 2)) // the same samples every run
	for k := range offs {
		offs[k] = from + int64(k)*stride + rnd.Int64N(stride-size+1)
	}
	// The samples are decoded by the workers free, as blocks are.
	workers := budget.Take(budget.Size(), 1)
	ests := make([][]float64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			defer budget.Give(1)
			dec, buf := newDecoder(), make([]byte, size)
			for k := w; k < len(offs); k += workers {
				n, _ := ra.ReadAt(buf, offs[k])
				guess := GuessStart(buf[:n])
				if guess < 0 {
					continue
				}
				stop, _, p := dec.Decode(buf[guess:n], offs[k]+int64(guess), Elem)
				for i, c := range measure(p) {
					for len(ests[w]) <= i {
						ests[w] = append(ests[w], 0)
					}
					ests[w][i] += float64(c) / float64(max(stop, 1)) * float64(stride)
				}
			}
		})
	}
	wg.Wait()
	var est []float64
	for _, e := range ests {
		for i, x := range e {
			for len(est) <= i {
				est = append(est, 0)
			}
			est[i] += x
		}
	}
	return est
}
